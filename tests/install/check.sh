#!/bin/sh
# make test-install: install pbdlab into a temporary prefix under the build directory and
# use it as a researcher would, with nothing from this tree on the include path:
#   1. every installed header, included as <pbdlab/ROOM/HEADER.h>, compiles on its own with
#      only `pkg-config --cflags pbdlab` (= -I${includedir}), as C11 and as C++ (g++), and
#      no installed header includes another without the pbdlab/ prefix;
#   2. tests/install/example.c builds against the physics library alone with `pkg-config
#      --cflags --libs pbdlab` (and with --static) as C and as C++ (g++ -x c++: extern "C"
#      guards), with no HDF5 on its link line nor among the libraries it loads, runs, and
#      both builds print the same; its XPBD update equals Eq. 18 worked out here in awk, and
#      its pendulum, stepped for 0.5 s, keeps its 1 m rod and swings down;
#   2b. tests/install/harness.c builds with `pkg-config --cflags --libs pbdlab-harness`
#      (both libraries and HDF5) and writes a readable run file;
#   3. the installed programs answer --help; DESTDIR stages the same files under the same
#      prefix, and `make uninstall` removes them.
# Usage: check.sh MAKE BUILD (the Makefile passes both). Exit status 1 on any failure.
set -eu
make=$1
build=$2
cc=${CC:-cc}
cxx=${CXX:-g++}
src=$(pwd)
root=$(cd "$build" && pwd)/test-install
prefix=$root/prefix
fail() { echo "test-install: $*" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$root/work"
$make -C "$src" --no-print-directory install PREFIX="$prefix" BUILD="$build" > "$root/install.log" 2>&1 ||
    { cat "$root/install.log" >&2; fail "make install PREFIX=$prefix failed"; }

PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
pkg-config --exists pbdlab || fail "pkg-config finds no pbdlab in $PKG_CONFIG_PATH"
cflags=$(pkg-config --cflags pbdlab)
libs=$(pkg-config --libs pbdlab)
static_libs=$(pkg-config --static --libs pbdlab)
echo "test-install: pkg-config --cflags --libs pbdlab: $cflags $libs"
case " $libs $static_libs " in
    *hdf5*|*pbdlab-harness*) fail "pkg-config --libs pbdlab names HDF5 or the harness: $libs" ;;
esac
pkg-config --exists pbdlab-harness || fail "pkg-config finds no pbdlab-harness in $PKG_CONFIG_PATH"
harness_libs=$(pkg-config --libs pbdlab-harness)
case " $harness_libs " in
    *" -lpbdlab-harness "*" -lpbd "*) ;;
    *) fail "pkg-config --libs pbdlab-harness: expected -lpbdlab-harness before -lpbd, found $harness_libs" ;;
esac

# 1. the headers: each alone, strict C11, from a directory outside the tree
cd "$root/work"
n=0
for h in $(cd "$prefix/include/pbdlab" && find . -name '*.h' | sed 's|^\./||' | sort); do
    if grep -q '#include *<hdf5' "$prefix/include/pbdlab/$h"; then
        fail "installed header $h includes hdf5.h (Cflags would need HDF5's include directory)"
    fi
    if grep -E '^#include "' "$prefix/include/pbdlab/$h" | grep -v '^#include "pbdlab/' ; then
        fail "installed header $h includes a header without the pbdlab/ prefix (above)"
    fi
    printf '#include <pbdlab/%s>\nint pbdlab_header_check;\n' "$h" > header.c
    $cc -std=c11 -Wall -Wextra -Werror -fsyntax-only $cflags header.c ||
        fail "installed header $h does not compile alone with $cflags"
    $cxx -x c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only $cflags header.c ||
        fail "installed header $h does not compile alone as C++ ($cxx) with $cflags"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no header installed under $prefix/include/pbdlab"

# 2. the example, linked both ways, against Eq. 18
cp "$src/tests/install/example.c" .
$cc -std=c11 -Wall -Wextra -Werror $cflags example.c $libs -o example ||
    fail "example.c does not build with pkg-config --cflags --libs pbdlab"
$cc -std=c11 -Wall -Wextra -Werror $cflags example.c $static_libs -o example-static ||
    fail "example.c does not build with pkg-config --static --libs pbdlab"
$cxx -x c++ -std=c++11 -Wall -Wextra -Werror $cflags example.c -x none $libs -o example-cxx ||
    fail "example.c does not build as C++ ($cxx) with pkg-config --cflags --libs pbdlab"
nm -C example-cxx | grep -q ' T pbd_step$' ||
    fail "the C++ build does not link pbd_step with C linkage"
./example > example.out || fail "the example exited with status $? (output: $(cat example.out))"
./example-static | cmp -s - example.out || fail "the --static build prints something else"
./example-cxx | cmp -s - example.out || fail "the C++ build prints something else"
echo "test-install: example.c built as C ($cc) and C++ ($cxx), same output"
for x in example example-static example-cxx; do
    if ldd ./$x | grep -i hdf5; then fail "$x, linked against pbdlab alone, loads HDF5 (above)"; fi
done
echo "test-install: the physics alone: no HDF5 on the link line nor among the loaded libraries"

# 2b. a program on the harness: a scene, stepped, logged to HDF5
cp "$src/tests/install/harness.c" .
$cc -std=c11 -Wall -Wextra -Werror $cflags harness.c $harness_libs -o harness ||
    fail "harness.c does not build with pkg-config --cflags --libs pbdlab-harness"
mkdir -p harness-out
./harness harness-out > harness.out || fail "the harness program exited with status $?"
[ -s harness-out/install/chain.h5 ] || fail "the harness program wrote no harness-out/install/chain.h5"
echo "test-install: $(cat harness.out)"
# XPBD Eq. 18 for one distance constraint C = |x1 - x2| - d, n = (x1 - x2)/|x1 - x2|:
#   Δλ = (-C - α̃λ)/(w1 + w2 + α̃),  λ' = λ + Δλ,  x1' = x1 + Δλ w1 n,  x2' = x2 - Δλ w2 n.
awk '
function abs(v) { return v < 0 ? -v : v }
function check(what, got, want) {
    e = abs(got - want) / (1 + abs(want))
    if (e > 1e-12) { printf "test-install: %s = %.17g, Eq. 18 gives %.17g\n", what, got, want; bad = 1 }
    if (e > worst) worst = e
}
$1 == "input" { w1 = $2; w2 = $3; d = $4; at = $5; l0 = $6; for (i = 0; i < 6; i++) x[i] = $(7 + i) }
$1 == "status" { st = $2 }
$1 == "lambda" { lambda = $2 }
$1 == "x" { for (i = 0; i < 6; i++) y[i] = $(2 + i); seen = 1 }
$1 == "pendulum" { pt = $3; plen = $5; py = $7; pseen = 1 }
END {
    if (!seen || st != 0) { print "test-install: no result from the example (status " st ")"; exit 1 }
    if (w1 != 0.11) { printf "test-install: w1 = %.17g, set as 0.11 exactly\n", w1; exit 1 }
    len = 0
    for (c = 0; c < 3; c++) { n[c] = x[c] - x[3 + c]; len += n[c] * n[c] }
    len = sqrt(len); C = len - d
    dl = (-C - at * l0) / (w1 + w2 + at)
    check("lambda", lambda, l0 + dl)
    for (c = 0; c < 3; c++) {
        check("x1[" c "]", y[c], x[c] + dl * w1 * n[c] / len)
        check("x2[" c "]", y[3 + c], x[3 + c] - dl * w2 * n[c] / len)
    }
    if (!pseen) { print "test-install: no pendulum line from the example"; exit 1 }
    if (abs(pt - 0.5) > 1e-9 || abs(plen - 1) > 1e-3 || !(py < -0.5)) {
        printf "test-install: pendulum after t = %.6g s: rod %.6g m (1 m; t = 0.5 s), bob at y = %.6g m (expected < -0.5 m)\n", pt, plen, py
        exit 1
    }
    if (bad) exit 1
    printf "test-install: %d headers compile alone (C and C++); example: C = %.6g, dlambda = %.6g, max rel. error vs Eq. 18 %.2g; pendulum rod %.9g m, bob y %.4g m\n", hdrs, C, dl, worst, plen, py
}' hdrs="$n" example.out || fail "the example disagrees with XPBD Eq. 18 (output in $root/work/example.out)"

# the programs run from the prefix, outside the tree
for p in "$prefix"/bin/pbd-*; do
    "$p" --help > /dev/null 2>&1 || fail "installed $(basename "$p") --help exits with status $?"
done

# 3. DESTDIR and uninstall
stage=$root/stage
$make -C "$src" --no-print-directory install PREFIX=/opt/pbdlab DESTDIR="$stage" BUILD="$build" \
    > "$root/stage.log" 2>&1 || { cat "$root/stage.log" >&2; fail "make install DESTDIR=$stage failed"; }
grep -qx 'prefix=/opt/pbdlab' "$stage/opt/pbdlab/lib/pkgconfig/pbdlab.pc" ||
    fail "DESTDIR=$stage: pbdlab.pc does not say prefix=/opt/pbdlab"
(cd "$prefix" && find . -type f | sort) > files-prefix
(cd "$stage/opt/pbdlab" && find . -type f | sort) > files-stage
cmp -s files-prefix files-stage || fail "DESTDIR installs other files than PREFIX (files-prefix, files-stage)"
$make -C "$src" --no-print-directory uninstall PREFIX=/opt/pbdlab DESTDIR="$stage" BUILD="$build" > /dev/null
left=$(find "$stage" -type f | head -3)
[ -z "$left" ] || fail "make uninstall left files behind: $left"
echo "test-install: DESTDIR staging and uninstall ok ($(wc -l < files-prefix) files)"
