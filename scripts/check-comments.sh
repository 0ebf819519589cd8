#!/bin/sh
# make check-doc-links, part two: the code's comments and the docs explain the code, so
#  1. no "issue N" citation (an issue number means nothing to a reader of the repository) in
#     any tracked file outside tests/ (*.c, *.h, *.sh, *.py, *.gp, Makefile, *.md);
#  2. every repository path a comment cites (a word starting with one of the rooms, e.g.
#     solver/newton/newton_blas.c, experiments/drivers/exp_*.c, solver/fluid/) exists: a
#     file or directory, or a pattern that matches one (*, <name> and an upper-case
#     placeholder such as NAME match any part of a name).
# Comments are C's /* */ and //, and # lines or tails in shell, Python, gnuplot and Makefiles.
# Prints FILE:LINE: what, expected, found per finding and exits 1 if any. Needs perl and git.
set -eu
cd "$(dirname "$0")/.."
sh scripts/repo-files.sh | perl -e '
use strict; use warnings;
my @files = grep { length && -f } map { chomp; $_ } <STDIN>;
my %exists = map { $_ => 1 } @files;
for my $f (@files) { my $d = $f; $exists{$d} = 1 while $d =~ s{/[^/]+$}{} }
my $rooms = qr{(?:solver|constraints|analysis|experiments|tests|scripts|python|data)};
my ($bad, $paths) = (0, 0);
sub fail { my ($where, $msg) = @_; print "$where: $msg\n"; $bad++ }
sub found {   # a path, a directory or a glob over the tracked files
    my $p = shift;
    $p =~ s{/$}{};
    return 1 if $exists{$p} || $p =~ m{^(build|data/results)(/|$)};
    return 0 unless $p =~ /[*<]|[A-Z]{2}/;
    (my $re = quotemeta $p) =~ s/\\\*|\\<[^>]*\\>|(?<![a-z])[A-Z][A-Z_]+(?![a-z])/[^\/]*/g;
    return scalar grep { m{^$re$} } keys %exists;
}
for my $f (@files) {
    next if $f =~ m{^tests/} || $f eq "scripts/check-comments.sh";
    my $c = $f =~ /\.[ch]$/;
    my $hash = $f =~ /\.(sh|py|gp)$|(^|\/)Makefile$|^\.ci\//;
    my $md = $f =~ /\.md$/;
    next unless $c || $hash || $md;
    open my $fh, "<", $f or next;
    my $in = 0;   # inside a C comment
    while (my $line = <$fh>) {
        fail("$f:$.", "an issue number (\"$1\"): expected the reason in words, found a citation")
            if $line =~ /\b(issues? [0-9]+)/i;
        next if $md;
        my $text = "";
        if ($c) {   # the comment text of this line, strings skipped
            my $l = $line;
            while (length $l) {
                if ($in) {
                    if ($l =~ s{^(.*?)\*/}{}s) { $text .= " $1"; $in = 0 } else { $text .= " $l"; $l = "" }
                } elsif ($l =~ s{^"(?:[^"\\]|\\.)*"}{} || $l =~ s{^\x27(?:[^\x27\\]|\\.)*\x27}{}) {
                } elsif ($l =~ s{^/\*}{}) { $in = 1 }
                elsif ($l =~ s{^//(.*)}{}s) { $text .= " $1" }
                else { $l =~ s{^[^"\x27/]+|^.}{}s }
            }
        } elsif ($line =~ /(?:^|\s)#(.*)/) {
            $text = $1;
        }
        while ($text =~ m{(?<![\w./-])($rooms/[\w.*<>/-]*)}g) {
            (my $p = $1) =~ s/[.,:;)-]+$//;
            $paths++;
            fail("$f:$.", "path $p in a comment: expected an existing file or directory, found none")
                unless found($p);
        }
    }
}
printf "check-comments: %d paths in comments, %d findings\n", $paths, $bad;
exit($bad ? 1 : 0);
'
