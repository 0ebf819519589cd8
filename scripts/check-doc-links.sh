#!/bin/sh
# make check-doc-links: every cross-reference in the repository's docs and code resolves.
#  1. Relative Markdown links in every tracked *.md, [text](path) and [text](path#anchor): the
#     path exists (relative to the linking file), and the anchor is a heading of the target
#     (GitHub's slug: lower case, punctuation dropped, spaces to hyphens).
#  2. Citations `FILE.md "Section"` (and `FILE.md "A", "B"`) in every tracked *.c, *.h, *.md,
#     *.sh, *.gp and Makefile: FILE.md exists (from the repository root, or from the citing
#     file's directory) and has a heading "Section" (or one that starts "Section: " or
#     "Section (").  DESIGN.md "The step" is one of these; a citation wrapped over two lines
#     (inside its quotes, or before them: a comment's next line, its * or # dropped) is read
#     whole.
# Prints one line per broken reference (FILE:LINE: what, expected, found) and exits 1 if any.
# Needs only perl (Debian's perl-base) and git (the tracked files; without git: find).
set -eu
cd "$(dirname "$0")/.."
sh scripts/repo-files.sh | perl -e '
use strict; use warnings;
my @files = grep { length } map { chomp; $_ } <STDIN>;
my (%heads, $bad, $links, $cites);
sub slug { my $h = lc shift; $h =~ s/`//g; $h =~ s/[^\w\- \x80-\xff]//g; $h =~ s/ /-/g; $h }
sub headings {   # heading texts and slugs of a Markdown file (outside fenced code)
    my $f = shift;
    return $heads{$f} if $heads{$f};
    my (%t, %s, %n, $fence);
    open my $fh, "<", $f or return $heads{$f} = [{}, {}];
    while (<$fh>) {
        $fence = !$fence if /^\s*(```|~~~)/;
        next if $fence || !/^#{1,6}\s+(.*?)\s*#*\s*$/;
        my $text = $1; (my $plain = $text) =~ s/`//g;
        $t{$plain} = 1;
        my $sl = slug($text);
        $s{$n{$sl} ? "$sl-$n{$sl}" : $sl} = 1; $n{$sl}++;
    }
    return $heads{$f} = [\%t, \%s];
}
sub norm { my $p = shift; 1 while $p =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1}; $p =~ s{(^|/)\./}{$1}g; $p }
sub dir { my $f = shift; $f =~ m{^(.*)/} ? "$1/" : "" }
sub fail { my ($where, $msg) = @_; print "$where: $msg\n"; $bad++ }
for my $f (grep { /\.md$/ } @files) {
    open my $fh, "<", $f or next;
    my $fence;
    while (my $line = <$fh>) {
        my $ln = $.;   # headings() below reads other files, which resets $.
        $fence = !$fence if $line =~ /^\s*(```|~~~)/;
        next if $fence;
        (my $l = $line) =~ s/`[^`]*`//g;   # no links inside inline code
        while ($l =~ /\]\(([^()\s]+)\)/g) {
            my $t = $1;
            next if $t =~ m{^[a-z][a-z0-9+.-]*:}i;   # http:, https:, mailto: ...
            $links++;
            my ($path, $anchor) = split /#/, $t, 2;
            my $target = length $path ? norm(dir($f) . $path) : $f;
            $target =~ s{/$}{};
            if (!-e $target) { fail("$f:$ln", "link ($t): expected an existing file, found no $target"); next }
            next unless defined $anchor && $target =~ /\.md$/;
            fail("$f:$ln", "link ($t): expected a heading with anchor #$anchor in $target, found none")
                unless headings($target)->[1]{$anchor};
        }
    }
}
for my $f (grep { /\.(c|h|md|sh|gp)$|(^|\/)Makefile$/ } @files) {
    next if $f eq "scripts/check-doc-links.sh";
    open my $fh, "<", $f or next;
    my @lines = <$fh>;
    for my $i (0 .. $#lines) {
        my $l = $lines[$i]; $. = $i + 1;
        # a citation wrapped inside its quotes: the next line, without its comment mark, joined
        if ($i < $#lines) {
            (my $next = $lines[$i + 1]) =~ s{^\s*(?:\*|#|//)?\s*}{};
            if ($l =~ /\.md`?(?:,? *"[^"\n]+")*,? *"[^"\n]*\S[^"\n]*$/
                || ($l =~ /\.md`?,?\s*$/ && $next =~ /^"/)) {
                chomp $l; $l .= " $next";
            }
        }
        while ($l =~ /([\w\/.-]*\.md)`?((?:,? *"[^"\n]+")+)/g) {
            my ($doc, $list) = ($1, $2);
            next if $doc eq "FILE.md";   # the placeholder in descriptions of this check
            my $target = -e $doc ? $doc : norm(dir($f) . $doc);
            $cites++;
            if (!-e $target) { fail("$f:$.", "citation $doc: expected an existing file, found none"); next }
            my $h = headings($target)->[0];
            while ($list =~ /"([^"]+)"/g) {
                my $sec = $1;
                next if $h->{$sec} || grep { index($_, "$sec: ") == 0 || index($_, "$sec (") == 0 } keys %$h;
                fail("$f:$.", "citation $doc \"$sec\": expected a heading \"$sec\" in $target, found none");
            }
        }
    }
}
printf "check-doc-links: %d relative links, %d file \"section\" citations, %d broken\n",
    $links // 0, $cites // 0, $bad // 0;
exit($bad ? 1 : 0);
'
