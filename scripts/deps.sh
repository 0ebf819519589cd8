#!/bin/sh
# Check for everything a build needs and install the Debian packages that are missing.
#
# The Makefile runs this at the start of every make that builds (cheap: file tests,
# `command -v`, three pkg-config/gcc calls, ~10 ms). Checked, with the package that has it:
#   gcc (the compiler, with OpenMP and the runtimes `make asan` links: libasan, libubsan),
#   libc6-dev, pkg-config, libgsl-dev, libhdf5-dev, libcunit1-dev, libsuitesparse-dev
#   (UMFPACK, CHOLMOD), libsleef-dev, gnuplot-nox, python3 with python3-h5py, python3-numpy
#   and python3-matplotlib (the Python route, python/), and with BLAS=openblas (the default)
#   libopenblas0-openmp (OpenBLAS's OpenMP build, which the build links by its path).
#   Installing OpenBLAS makes Debian point the system's libblas.so.3/liblapack.so.3
#   alternatives at it; deps.sh sets them back to what they were (pbdlab links OpenBLAS
#   itself and leaves the system's choice alone).
#
# All there: writes what it found to build/deps.found, only when that changed (the
# Makefile regenerates build/config.mk then), prints nothing, exits 0.
# Missing, as root with apt-get: installs the missing packages, printing a few progress
# lines (apt's and dpkg's output go to build/apt.log), then checks again.
# Missing otherwise: prints what is missing and, as its last line, the exact command to
# install it; exits 1.
#
# Environment: CC (the compiler make uses; default cc), BLAS (openblas or netlib; default
# openblas), PBD_DEPS_INSTALL=0 (never install, only report, even as root).
# shellcheck disable=SC2086,SC2046 # lists (packages, modules, directories) are split on purpose
set -u

BUILD_DIR=build
LOG=$BUILD_DIR/apt.log
APT_OPTS="-y --no-install-recommends"

missing_what=""   # "HDF5 (libhdf5-dev), ..."
missing_pkgs=""   # "libhdf5-dev ..."
found=""          # one line per dependency: what and where

need() { # what package (a package already listed is not listed again)
    case " $missing_pkgs " in *" $2 "*) return ;; esac
    missing_what="${missing_what:+$missing_what, }$1"
    missing_pkgs="${missing_pkgs:+$missing_pkgs }$2"
}
have() { found="$found$*
"; }

# The first of the given files (patterns allowed) that exists.
first_file() {
    for pattern in "$@"; do
        for f in $pattern; do [ -e "$f" ] && { echo "$f"; return 0; }; done
    done
    return 1
}

# A library: its pkg-config module (configure.sh takes the flags from it) and its headers,
# looked up in pkg-config's include directories and the system's.
lib() { # name module package header...
    name=$1 mod=$2 pkg=$3; shift 3
    case "$modules " in *" $mod "*|*" $mod-serial "*) ;; *) need "$name ($mod.pc)" $pkg; return ;; esac
    for h in "$@"; do
        if p=$(first_file $(for d in $incdirs; do echo "$d/$h"; done)); then have "$mod $p"
        else need "$name ($h)" $pkg; fi
    done
}

check() {
    missing_what="" missing_pkgs="" found=""

    # The compiler make uses (CC), and gcc with its runtimes: -fopenmp (libgomp), make asan
    # (libasan, libubsan). Debian's gcc pulls them in (gcc-12 -> libgcc-12-dev).
    set -- ${CC:-cc}
    if ! command -v "$1" >/dev/null 2>&1; then   # not recorded: make fuzz sets CC=clang
        case $1 in clang*) need "C compiler ($1)" clang ;; *) need "C compiler ($1)" gcc ;; esac
    fi
    case $1 in clang*) # make fuzz: libFuzzer and the sanitizers' runtimes, clang's OpenMP
        if p=$(first_file /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a); then
            have "clang runtimes $p"; else need "clang's libFuzzer runtime" libclang-rt-dev; fi
        if p=$(first_file /usr/lib/llvm-*/lib/libomp.so); then have "clang OpenMP $p"
        else need "clang's OpenMP (libomp)" libomp-dev; fi ;;
    esac
    if command -v gcc >/dev/null 2>&1; then
        gccdir=$(dirname "$(gcc -print-libgcc-file-name 2>/dev/null)")
        for rt in libgomp.so libasan.so libubsan.so; do
            if [ -e "$gccdir/$rt" ]; then have "gcc $gccdir/$rt"; else need "gcc's $rt" gcc; fi
        done
    else
        need "gcc (OpenMP, sanitizers)" gcc
    fi
    if p=$(first_file /usr/include/stdio.h); then have "libc $p"; else need "C library headers (stdio.h)" libc6-dev; fi

    # Libraries (lib above).
    incdirs="/usr/include /usr/include/*-linux-gnu /usr/include/hdf5/serial /usr/local/include"
    if p=$(command -v pkg-config); then
        have "pkg-config $p"
        modules=" gsl hdf5 cunit sleef"
        if ! pkg-config --exists $modules 2>/dev/null; then   # which ones, then
            modules=""
            for mod in gsl hdf5 hdf5-serial cunit sleef; do
                case $mod$modules in hdf5-serial*" hdf5"*) continue ;; esac
                pkg-config --exists $mod 2>/dev/null && modules="$modules $mod"
            done
        fi
        if [ -n "$modules" ]; then
            have "versions $(pkg-config --modversion $modules 2>/dev/null | tr '\n' ' ')"
            incdirs="$(pkg-config --cflags-only-I $modules 2>/dev/null | sed 's/-I//g') $incdirs"
        fi
    else
        need "pkg-config" pkg-config
        modules=" gsl hdf5 cunit sleef"   # judged by their headers alone
    fi
    lib GSL gsl libgsl-dev gsl/gsl_vector.h
    lib HDF5 hdf5 libhdf5-dev hdf5.h hdf5_hl.h
    lib CUnit cunit libcunit1-dev CUnit/CUnit.h
    lib SLEEF sleef libsleef-dev sleef.h
    for h in umfpack.h cholmod.h; do   # SuiteSparse has no pkg-config module on Debian 12
        if p=$(first_file /usr/include/suitesparse/$h /usr/local/include/suitesparse/$h); then
            have "suitesparse $p"
        else need "SuiteSparse (suitesparse/$h)" libsuitesparse-dev; fi
    done

    # The BLAS the build links (scripts/configure.sh, solver/blas.c).
    case ${BLAS:-openblas} in
    openblas)
        if p=$(first_file "/usr/lib/*/openblas-openmp/libopenblas.so.0"); then have "blas openblas $p"
        else need "OpenBLAS, OpenMP build (openblas-openmp/libopenblas.so.0; or make BLAS=netlib)" libopenblas0-openmp; fi ;;
    netlib) have "blas netlib" ;;
    *) echo "pbdlab: BLAS: expected openblas or netlib, found '$BLAS'" >&2; exit 2 ;;
    esac

    if p=$(command -v gnuplot); then have "gnuplot $p"; else need "gnuplot (the program)" gnuplot-nox; fi

    # The Python route (python/pbdlab.py, its examples, suite python): Debian's python3 and
    # its h5py, NumPy and Matplotlib (the module files: no interpreter started here).
    if [ -x /usr/bin/python3 ]; then have "python3 /usr/bin/python3"; else need "Python 3 (/usr/bin/python3)" python3; fi
    for m in h5py:python3-h5py numpy:python3-numpy matplotlib:python3-matplotlib; do
        if p=$(first_file "/usr/lib/python3/dist-packages/${m%%:*}/__init__.py"); then have "python $p"
        else need "Python's ${m%%:*} (/usr/lib/python3/dist-packages/${m%%:*})" "${m#*:}"; fi
    done

    [ -z "$missing_pkgs" ]
}

# Write build/deps.found when what was found differs from what it holds.
record() {
    mkdir -p "$BUILD_DIR" || return 1
    printf '%s' "$found" | cmp -s - "$BUILD_DIR/deps.found" && return 0
    printf '%s' "$found" > "$BUILD_DIR/deps.found.tmp" && mv "$BUILD_DIR/deps.found.tmp" "$BUILD_DIR/deps.found"
}

# One progress line per step: "pbdlab: WHAT ... done (N s)"; the command's output goes to
# the log, whose tail is shown when it fails.
step() {
    what=$1; shift
    printf 'pbdlab: %s ...' "$what" >&2
    t0=$(date +%s)
    echo "### $(date '+%F %T') $*" >> "$LOG"
    if "$@" >> "$LOG" 2>&1 < /dev/null; then
        echo " done ($(( $(date +%s) - t0 )) s)" >&2
    else
        echo " failed; the end of $LOG:" >&2
        tail -n 15 "$LOG" | sed 's/^/    /' >&2
        return 1
    fi
}

plural() { [ "$1" = 1 ] && echo "1 $2" || echo "$1 ${2}s"; }

# The system's BLAS and LAPACK alternatives (libblas.so.3, liblapack.so.3 of this
# architecture), one "name value" line each.
alternatives() {
    for alt in $(update-alternatives --get-selections 2>/dev/null | awk '/^lib(blas|lapack)\.so\.3-/ { print $1 }'); do
        echo "$alt $(update-alternatives --query "$alt" | sed -n 's/^Value: //p')"
    done
}

# Installing OpenBLAS points the alternatives at it (Debian's priority 100 over netlib's 10):
# set back every one that did not point at OpenBLAS before (to its old value, or to the
# reference BLAS when it did not exist), so that only pbdlab, which links OpenBLAS itself,
# uses it.
restore_alternatives() { # the output of alternatives() before the install
    alternatives | while read -r alt now; do
        case $now in *openblas*) ;; *) continue ;; esac
        old=$(printf '%s\n' "$1" | awk -v a="$alt" '$1 == a { print $2 }')
        case $old in *openblas*) continue ;; esac
        [ -n "$old" ] || old=$(update-alternatives --list "$alt" | grep -v openblas | head -n 1)
        [ -n "$old" ] && update-alternatives --set "$alt" "$old" >> "$LOG" 2>&1 &&
            echo "pbdlab: kept the system's $alt at $old (pbdlab links OpenBLAS itself)" >&2
    done
}

install() {
    mkdir -p "$BUILD_DIR" || return 1
    before=$(alternatives)
    export DEBIAN_FRONTEND=noninteractive
    echo "pbdlab: installing $missing_pkgs with apt-get (log: $LOG)" >&2
    step "updating the package lists" apt-get update -q || return 1
    n=$(apt-get -s install $APT_OPTS $missing_pkgs 2>/dev/null | grep -c '^Inst ')
    # What is not in apt's cache yet: one line per .deb with its size.
    apt-get install -qq --print-uris $APT_OPTS $missing_pkgs > "$BUILD_DIR/apt.uris" 2>/dev/null
    k=$(grep -c . "$BUILD_DIR/apt.uris")
    size=$(awk '{ s += $3 } END { if (s >= 1e6) printf "%.0f MB", s / 1e6; else printf "%.0f kB", s / 1e3 }' \
           "$BUILD_DIR/apt.uris")
    rm -f "$BUILD_DIR/apt.uris"
    if [ "$k" != 0 ]; then
        step "downloading $(plural "$k" package) ($size)" \
            apt-get install -q $APT_OPTS --download-only $missing_pkgs || return 1
    fi
    step "unpacking and configuring $(plural "$n" package)" apt-get install -q $APT_OPTS $missing_pkgs || return 1
    restore_alternatives "$before"
}

tell() {
    echo "pbdlab: missing: $missing_what" >&2
    if command -v apt-get >/dev/null 2>&1; then
        echo "pbdlab: install them, then run make again:" >&2
        echo "as root: apt-get update && apt-get install $APT_OPTS $missing_pkgs" >&2
        echo "or: sudo apt-get update && sudo apt-get install $APT_OPTS $missing_pkgs" >&2
    else
        echo "pbdlab: no apt-get here: install your system's packages for these (their Debian names), then run make again:" >&2
        echo "$missing_pkgs" >&2
    fi
}

if check; then
    record || { echo "pbdlab: cannot write $BUILD_DIR/deps.found (in $(pwd))" >&2; exit 1; }
    exit 0
fi

if [ "$(id -u)" = 0 ] && [ "${PBD_DEPS_INSTALL:-1}" != 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "pbdlab: missing: $missing_what" >&2
    if install && check; then
        echo "pbdlab: all set" >&2
        record || { echo "pbdlab: cannot write $BUILD_DIR/deps.found (in $(pwd))" >&2; exit 1; }
        exit 0
    fi
    echo "pbdlab: installing did not work" >&2
    check
fi
tell
exit 1
