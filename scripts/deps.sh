#!/bin/sh
# Check for everything a build needs and install the Debian packages that are missing.
#
# The Makefile runs this at the start of every make that builds (cheap: file tests,
# `command -v`, three pkg-config/gcc calls, ~10 ms). Checked, with the package that has it:
#   gcc (the compiler, with OpenMP and the runtimes `make asan` links: libasan, libubsan),
#   libc6-dev, pkg-config, libgsl-dev, libhdf5-dev, libcunit1-dev, libsuitesparse-dev
#   (UMFPACK, CHOLMOD), libsleef-dev, gnuplot-nox.
#
# All there: writes what it found to build/deps.found, only when that changed (the
# Makefile regenerates build/config.mk then), prints nothing, exits 0.
# Missing, as root with apt-get: installs the missing packages, printing a few progress
# lines (apt's and dpkg's output go to build/apt.log), then checks again.
# Missing otherwise: prints what is missing and, as its last line, the exact command to
# install it; exits 1.
#
# Environment: CC (the compiler make uses; default cc), PBD_DEPS_INSTALL=0 (never install,
# only report, even as root).
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

    if p=$(command -v gnuplot); then have "gnuplot $p"; else need "gnuplot (the program)" gnuplot-nox; fi

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

install() {
    mkdir -p "$BUILD_DIR" || return 1
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
