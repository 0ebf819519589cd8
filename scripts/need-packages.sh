# Sourced by the check scripts: need_packages TAG PACKAGES... installs Debian packages that a
# check needs (apt-get, no recommends) when running as root; otherwise prints the exact
# command and exits 1. TAG names the check in the messages (e.g. check-report).
need_packages() {
    tag=$1
    shift
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "$tag: installing $* with apt-get (no recommends)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "$@" >&2 || {
            echo "$tag: apt-get failed; run: sudo apt-get install --no-install-recommends $*" >&2
            exit 1
        }
    else
        echo "$tag: $* not all installed; run this, then make $tag again:" >&2
        echo "  sudo apt-get install --no-install-recommends $*" >&2
        exit 1
    fi
}
