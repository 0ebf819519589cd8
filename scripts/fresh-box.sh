#!/bin/bash
# The README's set-up on a bare Debian 12, for real (`make fresh-box`, CI).
#
# A bare bookworm root filesystem (debootstrap --variant=minbase plus make, git and
# ca-certificates, as a tester's box would be; cached in build/fresh-box/rootfs.tar) is
# unpacked afresh on every run, and this repository's HEAD is cloned into it twice. Then,
# in a chroot:
#   1. as a non-root user, `make test` must fail and its last line must be the exact
#      install command (checked with apt-get -s);
#   2. as root, `make test` installs what is missing (a few progress lines, no dpkg output)
#      and passes, and a program built with -fsanitize=address,undefined (make asan) runs;
#   3. after `apt-get remove libhdf5-dev`, `make test` must name libhdf5-dev (not fail in the
#      compiler), and as root `make all` installs it again without rebuilding.
# Exit status 0 when all of it holds. Logs: build/fresh-box/logs/. Needs root.
#
# Mounts (proc, sys, dev, dev/pts) are made in a private mount namespace (unshare), so the
# host never sees them and they vanish with the script however it ends; a trap also kills
# what still runs in the box and unmounts them, in reverse order, on exit, SIGINT and SIGTERM.
#
# Environment: FRESH_BOX_REBOOTSTRAP=1 makes a new rootfs.tar; FRESH_BOX_KEEP=1 keeps the
# box (build/fresh-box/box) after a passing run; FRESH_BOX_NO_CACHE=1 downloads every
# package again (otherwise the .debs are kept in build/fresh-box/debs between runs, like a
# caching proxy: the box still starts without them installed); FRESH_BOX_NS=0 (below).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
work=$repo/build/fresh-box
box=$work/box
logs=$work/logs
suite=bookworm
mirror=http://deb.debian.org/debian
# What a bare box lacks: the non-root run must ask for all of these.
expected_pkgs="gcc libc6-dev pkg-config libgsl-dev libhdf5-dev libcunit1-dev libsuitesparse-dev libsleef-dev gnuplot-nox"
user=tester

exec 3>&1 4>&2   # say and fail write here even while a step's output goes to its log
say() { echo "fresh-box: $*" >&3; }
fail() { echo "fresh-box: FAILED: $*" >&4; exit 1; }
since() { echo "$(( $(date +%s) - $1 )) s"; }

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mount): run it as root"
command -v git > /dev/null || fail "needs git"

# A private mount namespace: nothing mounted here is seen outside (so a `make clean` on the
# host cannot walk into the box's /dev), and all of it goes when the script (and anything
# left in the box) ends, even on SIGKILL. Same process: signals reach this script as before.
# FRESH_BOX_NS=0 skips it (for debugging: the mounts are then the host's until the trap).
if [ -z "${FRESH_BOX_NS:-}" ]; then
    unshare --mount --propagation private true 2> /dev/null ||
        fail "unshare --mount does not work here (FRESH_BOX_NS=0 to mount in the host's namespace)"
    export FRESH_BOX_NS=1
    exec unshare --mount --propagation private "$BASH" "${BASH_SOURCE[0]}" "$@"
fi

t0=$(date +%s)
mkdir -p "$work" "$logs"

# --- Mounts and cleanup ------------------------------------------------------------------
mounted=()   # in mounting order
mounts_under() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts; }
do_mount() { # mount arguments...; the last one is the mount point
    mount "$@"
    mounted+=("${*: -1}")
}
kill_box() { # our background steps, then every process whose root is the box
    local p i left=1
    # shellcheck disable=SC2046 # one pid a word
    { kill -KILL $(jobs -p) 2> /dev/null; wait; } 2> /dev/null || true
    for (( i = 0; i < 50 && left; i++ )); do   # again while make still starts compilers
        left=0
        for p in /proc/[0-9]*; do
            [ "$(readlink "$p/root" 2> /dev/null)" = "$box" ] || continue
            kill -KILL "${p#/proc/}" 2> /dev/null && left=1
        done
        [ $left = 0 ] || sleep 0.1
    done
}
unmount_all() { # ours in reverse order, then (lazily) whatever else is left under the box
    local i m
    for (( i = ${#mounted[@]} - 1; i >= 0; i-- )); do
        m=${mounted[i]}
        umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || echo "fresh-box: cannot unmount $m" >&4
    done
    mounted=()
    for m in $(mounts_under "$box" | sort -r) $(mounts_under "$work/bootstrap" | sort -r); do
        umount -l "$m" 2> /dev/null || true
    done
}
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    # Best effort, and without errexit: in a trap, a bare `return` gives the status from
    # before the trap (130 after SIGINT), which under set -e would end the cleanup there.
    set +e
    kill_box
    unmount_all
    [ -z "$(mounts_under "$box")" ] || echo "fresh-box: still mounted: $(mounts_under "$box")" >&4
    exit "$status"
}
trap cleanup EXIT
trap 'echo >&3; say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

remove_tree() { # a directory of ours, once nothing is mounted under it
    [ -n "$(mounts_under "$1")" ] && fail "something is still mounted under $1: $(mounts_under "$1")"
    rm -rf --one-file-system "$1"
}

# Long commands run in the background and are waited for, so that a signal reaches the
# trap at once (bash runs traps only between commands).
run() { "$@" & wait $!; }

# --- The bare root filesystem, cached ---------------------------------------------------
tarball=$work/rootfs.tar
if [ ! -s "$tarball" ] || [ "${FRESH_BOX_REBOOTSTRAP:-0}" = 1 ]; then
    if ! command -v debootstrap > /dev/null; then
        say "installing debootstrap"
        { run apt-get update -qq && run apt-get install -y -qq --no-install-recommends debootstrap \
            debian-archive-keyring; } > "$logs/debootstrap-install.log" 2>&1 ||
            { tail -n 20 "$logs/debootstrap-install.log"; fail "cannot install debootstrap"; }
    fi
    say "debootstrap $suite (minbase + make, git, ca-certificates) from $mirror ..."
    t=$(date +%s)
    remove_tree "$work/bootstrap"
    run debootstrap --variant=minbase --include=make,git,ca-certificates "$suite" "$work/bootstrap" "$mirror" \
        > "$logs/debootstrap.log" 2>&1 || { tail -n 20 "$logs/debootstrap.log"; fail "debootstrap failed"; }
    unmount_all   # debootstrap unmounts what it mounted, unless it failed
    rm -f "$work/bootstrap"/var/cache/apt/archives/*.deb
    tar --numeric-owner -C "$work/bootstrap" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    remove_tree "$work/bootstrap"
    say "cached the bare root filesystem in ${tarball#"$repo"/} ($(since "$t"))"
fi

# --- A fresh copy of it, with this repository's HEAD ------------------------------------
t=$(date +%s)
remove_tree "$box"
mkdir -p "$box"
tar --numeric-owner -C "$box" -xpf "$tarball"
size=$(du -sh "$box" 2> /dev/null | cut -f1)
rev=$(git -C "$repo" rev-parse --short HEAD)
git -C "$repo" bundle create "$box/tmp/pbdlab.bundle" HEAD 2> "$logs/bundle.log" ||
    { cat "$logs/bundle.log"; fail "git bundle failed"; }
cp /etc/resolv.conf "$box/etc/resolv.conf"
debs=$work/debs
if [ "${FRESH_BOX_NO_CACHE:-0}" != 1 ] && [ -d "$debs" ]; then
    cp -l "$debs"/*.deb "$box/var/cache/apt/archives/" 2> /dev/null || true
fi

if [ "${FRESH_BOX_NS:-}" != 1 ]; then   # no namespace of our own: keep our mounts to ourselves
    do_mount --bind "$box" "$box"
    mount --make-rprivate "$box"
fi
do_mount -t proc proc "$box/proc"
do_mount -t sysfs -o ro sysfs "$box/sys"
do_mount --bind /dev "$box/dev"
mount --make-private "$box/dev"   # or devpts below would show in the host's /dev/pts
do_mount -t devpts -o newinstance,ptmxmode=0666 devpts "$box/dev/pts"

# in_box USER COMMAND: COMMAND (sh) in the box as USER (root or $user), in a clean environment.
in_box() {
    local who=$1 home=/root; shift
    [ "$who" = root ] || home=/home/$who
    chroot --userspec="$who:$who" "$box" /usr/bin/env -i HOME="$home" USER="$who" LOGNAME="$who" \
        PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin LANG=C.UTF-8 TERM=dumb \
        /bin/sh -c "cd; $1"
}
in_box root "useradd --create-home --shell /bin/bash $user && chmod 644 /tmp/pbdlab.bundle \
    && git -c advice.detachedHead=false clone -q /tmp/pbdlab.bundle /srv/pbdlab" > "$logs/setup.log" 2>&1 ||
    { cat "$logs/setup.log"; fail "cannot set up the box"; }
in_box "$user" "git -c advice.detachedHead=false clone -q /tmp/pbdlab.bundle pbdlab" >> "$logs/setup.log" 2>&1 ||
    { cat "$logs/setup.log"; fail "cannot clone as $user"; }
say "bare box ready: $size, HEAD $rev cloned for root (/srv/pbdlab) and $user (~/pbdlab) ($(since "$t"))"

# --- 1. Non-root, nothing installed -------------------------------------------------------
t=$(date +%s)
status=0
run in_box "$user" "cd pbdlab && make test" > "$logs/1-nonroot.log" 2>&1 || status=$?
last=$(tail -n 1 "$logs/1-nonroot.log")
before=$(tail -n 2 "$logs/1-nonroot.log" | head -n 1)
say "1. as $user: make test exits $status; its last line:"
echo "    $last" >&3
[ "$status" != 0 ] || fail "make test as $user passed on a bare box"
grep -n 'No rule to make\|\*\*\*\|No such file' "$logs/1-nonroot.log" && fail "make printed errors of its own (above)"
opts="-y --no-install-recommends"
pkgs=${last#"or: sudo apt-get update && sudo apt-get install $opts "}
[ "$pkgs" != "$last" ] || fail "the last line is not 'or: sudo apt-get update && sudo apt-get install $opts …'"
[ "$before" = "as root: apt-get update && apt-get install $opts $pkgs" ] ||
    fail "the line before it is not 'as root: apt-get update && apt-get install $opts $pkgs': $before"
for p in $expected_pkgs; do
    case " $pkgs " in *" $p "*) ;; *) fail "the install command lacks $p" ;; esac
done
# The command itself, as root would run it, simulated (apt-get -s installs nothing).
cmd=${before#as root: }
run in_box root "${cmd/apt-get install/apt-get install -s}" > "$logs/1-simulate.log" 2>&1 ||
    { tail -n 20 "$logs/1-simulate.log"; fail "the printed command does not work as root: $cmd"; }
say "   the command works as root (apt-get -s: $(grep -c '^Inst ' "$logs/1-simulate.log") packages to install) ($(since "$t"))"

# --- 2. Root: make test installs what is missing and passes ------------------------------
t=$(date +%s)
status=0
say "2. as root: make test (output: ${logs#"$repo"/}/2-root.log)"
run in_box root "cd /srv/pbdlab && make test" > "$logs/2-root.log" 2>&1 || status=$?
grep '^pbdlab:' "$logs/2-root.log" | sed 's/^/    /' || true
grep -E '^ +(tests|asserts) ' "$logs/2-root.log" | sed 's/^/    /' || true
if [ "$status" != 0 ]; then tail -n 30 "$logs/2-root.log"; fail "make test as root exits $status"; fi
noise=$(grep -cE '^(Selecting previously|Unpacking |Setting up |Preparing to unpack|Get:[0-9])' "$logs/2-root.log" || true)
[ "$noise" = 0 ] || fail "apt/dpkg printed $noise lines into make's output"
grep -qE '^ +tests +[0-9]+ +[0-9]+ +[0-9]+ +0 ' "$logs/2-root.log" || fail "no CUnit summary with 0 failed tests"
# make asan links with -fsanitize=address,undefined: gcc's runtimes must have come along.
in_box root "printf 'int main(void) { return 0; }\n' > /tmp/san.c && cc -fopenmp -fsanitize=address,undefined \
    /tmp/san.c -o /tmp/san && /tmp/san" > "$logs/2-sanitizers.log" 2>&1 ||
    { cat "$logs/2-sanitizers.log"; fail "cc -fsanitize=address,undefined does not link in the box"; }
say "   passed; cc -fopenmp -fsanitize=address,undefined links and runs ($(since "$t"))"
mkdir -p "$debs"
cp -l -n "$box"/var/cache/apt/archives/*.deb "$debs/" 2> /dev/null || true

# --- 3. A library removed after the first build ------------------------------------------
t=$(date +%s)
in_box root "apt-get remove -y -qq libhdf5-dev" > "$logs/3-remove.log" 2>&1 ||
    { cat "$logs/3-remove.log"; fail "apt-get remove libhdf5-dev"; }
status=0
run in_box "$user" "cd /srv/pbdlab && make test" > "$logs/3-nonroot.log" 2>&1 || status=$?
[ "$status" != 0 ] || fail "make test passed without libhdf5-dev"
grep -n 'hdf5\.h\|No rule to make\|\*\*\*' "$logs/3-nonroot.log" && fail "a raw error instead of deps.sh's message (above)"
case "$(tail -n 1 "$logs/3-nonroot.log")" in
    "or: sudo apt-get update && sudo apt-get install $opts libhdf5-dev") ;;
    *) cat "$logs/3-nonroot.log"; fail "after apt-get remove libhdf5-dev, the last line does not ask for it" ;;
esac
run in_box root "cd /srv/pbdlab && make all" > "$logs/3-root.log" 2>&1 ||
    { tail -n 30 "$logs/3-root.log"; fail "make all as root did not reinstall libhdf5-dev"; }
grep -q "installing libhdf5-dev" "$logs/3-root.log" || fail "make all as root did not install libhdf5-dev"
! grep -q '^cc ' "$logs/3-root.log" || fail "reinstalling libhdf5-dev rebuilt the objects"
say "3. after apt-get remove libhdf5-dev: make test names it; as root, make all installs it again, rebuilds nothing ($(since "$t"))"

kill_box
unmount_all
[ "${FRESH_BOX_KEEP:-0}" = 1 ] || remove_tree "$box"
say "PASSED in $(since "$t0") (the bare box: HEAD $rev)"
