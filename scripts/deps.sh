#!/bin/sh
# Check for the fixed dependencies (GSL, HDF5, CUnit, gnuplot) and install the Debian
# packages that are missing when running as root; otherwise print the exact command.
set -u
PACKAGES="libgsl-dev libhdf5-dev libcunit1-dev gnuplot-nox pkg-config"

have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }

missing=""
have_pc gsl || missing="$missing gsl"
{ have_pc hdf5 || have_pc hdf5-serial || [ -f /usr/include/hdf5/serial/hdf5.h ]; } || missing="$missing hdf5"
{ have_pc cunit || [ -f /usr/include/CUnit/CUnit.h ]; } || missing="$missing cunit"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot"

[ -z "$missing" ] && exit 0

echo "pbdlab: missing:$missing" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "pbdlab: installing $PACKAGES with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $PACKAGES >&2 || {
        echo "pbdlab: apt-get failed; run: sudo apt-get install $PACKAGES" >&2
        exit 1
    }
    exit 0
fi
echo "pbdlab: run this, then make again:  sudo apt-get install $PACKAGES" >&2
exit 1
