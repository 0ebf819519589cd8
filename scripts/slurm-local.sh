#!/bin/sh
# A real single-node Slurm cluster on this machine, for `make test-slurm` (experiments/README.md,
# "On a Slurm cluster"): munged, slurmctld and slurmd from Debian's packages, with everything
# they write (config, munge key and socket, state, spool, logs, PIDs) under DIR
# (default build/slurm-local).
#
#   scripts/slurm-local.sh up [DIR]            install what is missing, start, wait for an idle node
#   scripts/slurm-local.sh down [DIR]          cancel the cluster's jobs, stop the recorded daemons
#   scripts/slurm-local.sh run [DIR] -- CMD... up, CMD with SLURM_CONF set, down (also on
#                                              SIGINT/SIGTERM or when up fails); CMD's status
#
# The daemons run in the foreground of this script's children, so their PIDs are the ones
# started here (DIR/daemons.pid, "name pid" lines); down stops exactly those, nothing found by
# name. They listen on 127.0.0.1 as far as Slurm allows: the controller's and the node's
# addresses are 127.0.0.1 and CommunicationParameters=NoCtldInAddrAny,NoInAddrAny binds the
# listening sockets to the address the host name resolves to (127.0.0.1 on Debian's default
# /etc/hosts; up prints where they listen). Ports: the first free pair from 16817/16818 on.
# Exit status: 0 up / down / CMD succeeded, 1 a daemon did not come up (its log is printed),
# did not stop, or still runs from an earlier up; 2 bad usage; otherwise CMD's status.
set -eu

PACKAGES="slurmctld slurmd slurm-client munge"

usage() { echo "slurm-local: $*" >&2; exit 2; }

# ---- install ---------------------------------------------------------------------------
install_missing() {
    missing=
    for c in slurmctld slurmd sbatch munged mungekey; do
        command -v "$c" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$c" >/dev/null 2>&1 ||
            missing="$missing $c"
    done
    [ -z "$missing" ] && return 0
    echo "slurm-local: missing:$missing" >&2
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "slurm-local: run this, then again:  sudo apt-get install --no-install-recommends $PACKAGES" >&2
        exit 1
    fi
    echo "slurm-local: installing $PACKAGES with apt-get (no recommends)" >&2
    # the packages' own services must not start: this cluster is ours, not the system's
    policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy"
    fi
    export DEBIAN_FRONTEND=noninteractive
    ok=0
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $PACKAGES >&2 && ok=1
    [ -z "$policy" ] || rm -f "$policy"
    [ "$ok" = 1 ] || { echo "slurm-local: apt-get failed" >&2; exit 1; }
}

# ---- configuration ---------------------------------------------------------------------
port_free() {
    command -v ss >/dev/null 2>&1 || return 0
    ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

configure() {
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    rm -rf "${dir:?}/etc" "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" "$dir/run"
    mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
    # munged refuses a key others can read, a socket others cannot reach, and any of their
    # directories others can write to
    mkdir -m 755 "$dir/munge"
    mkdir -m 755 "$dir/munge/socket"
    mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null ||
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 600 "$dir/munge/munge.key"
    chmod 755 "$dir/log" "$dir/run"

    port=16817
    while ! port_free "$port" || ! port_free $((port + 1)); do
        port=$((port + 10))
        [ "$port" -lt 17817 ] || { echo "slurm-local: no free port pair in 16817-17817" >&2; exit 1; }
    done
    host=$(hostname -s)
    # the node as slurmd sees it: CPUs, boards, sockets, cores, threads, memory
    shape=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
    cat > "$dir/etc/slurm.conf" <<EOF
# written by scripts/slurm-local.sh: a single-node cluster on loopback for make test-slurm
ClusterName=pbdlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
ReturnToService=2
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 $shape State=UNKNOWN
PartitionName=pbd Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

# ---- daemons ---------------------------------------------------------------------------
# start NAME CMD...: CMD in the background (in the foreground of itself), its PID recorded
start() {
    name=$1
    shift
    "$@" > "$dir/log/$name.stdout" 2>&1 &
    echo "$name $!" >> "$dir/daemons.pid"
}

alive() { kill -0 "$1" 2>/dev/null; }

# The PID is still the daemon started here (not a PID reused since): its command line names DIR.
ours() { alive "$1" && tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -qF "$dir"; }

fail_up() {
    echo "slurm-local: $1; its log:" >&2
    for f in "$dir/log/$2"*; do [ -f "$f" ] && tail -20 "$f" >&2; done
    exit 1
}

up() {
    install_missing
    if [ -s "$dir/daemons.pid" ]; then
        while read -r name pid; do
            ! ours "$pid" || { echo "slurm-local: $dir: $name (PID $pid) of an earlier start still runs: scripts/slurm-local.sh down $dir first" >&2; exit 1; }
        done < "$dir/daemons.pid"
    fi
    configure
    : > "$dir/daemons.pid"
    export SLURM_CONF="$dir/etc/slurm.conf"
    PATH=$PATH:/usr/sbin:/sbin
    start munged munged --foreground --socket="$dir/munge/socket/munge.socket" \
        --key-file="$dir/munge/munge.key" --log-file="$dir/log/munged.log" \
        --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/munged.seed" --origin=127.0.0.1
    i=0
    until [ -S "$dir/munge/socket/munge.socket" ]; do
        i=$((i + 1))
        [ "$i" -le 100 ] && alive "$(awk '$1 == "munged" { print $2 }' "$dir/daemons.pid")" ||
            fail_up "munged did not start" munged
        sleep 0.1
    done
    start slurmctld slurmctld -D -f "$SLURM_CONF"
    start slurmd slurmd -D -f "$SLURM_CONF" -N "$(hostname -s)"
    # wait for an idle node
    i=0
    until [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; do
        i=$((i + 1))
        while read -r name pid; do
            alive "$pid" || fail_up "$name exited" "$name"
        done < "$dir/daemons.pid"
        [ "$i" -le 120 ] || fail_up "no idle node after 60 s (sinfo: $(sinfo -h 2>&1 | tr '\n' ' '))" slurm
        sleep 0.5
    done
    echo "slurm-local: up in $dir (SLURM_CONF=$SLURM_CONF); daemons: $(tr '\n' ' ' < "$dir/daemons.pid")"
    if command -v ss >/dev/null 2>&1; then
        echo "slurm-local: listening: $(ss -Hltn "( sport = :$port or sport = :$((port + 1)) )" |
            awk '{ print $4 }' | sort -u | tr '\n' ' ')"
    fi
    sinfo
}

down() {
    [ -f "$dir/daemons.pid" ] || return 0
    export SLURM_CONF="$dir/etc/slurm.conf"
    # the cluster's jobs end first, so that no job step outlives its slurmd
    ctld=$(awk '$1 == "slurmctld" { print $2 }' "$dir/daemons.pid")
    if [ -n "$ctld" ] && ours "$ctld" && [ -n "$(squeue -h -o %A 2>/dev/null)" ]; then
        scancel --full $(squeue -h -o %A 2>/dev/null | sort -u) 2>/dev/null || true
        i=0
        while [ -n "$(squeue -h -o %A 2>/dev/null)" ] && [ "$i" -lt 40 ]; do
            i=$((i + 1)); sleep 0.5
        done
    fi
    # slurmd, slurmctld, munged: the reverse order of start
    for name in slurmd slurmctld munged; do
        pid=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/daemons.pid")
        [ -n "$pid" ] && ours "$pid" || continue
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while alive "$pid" && [ "$i" -lt 50 ]; do i=$((i + 1)); sleep 0.2; done
        if alive "$pid"; then
            echo "slurm-local: $name (PID $pid) ignored SIGTERM for 10 s: SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    left=
    while read -r name pid; do
        ! alive "$pid" || left="$left $name:$pid"
    done < "$dir/daemons.pid"
    [ -z "$left" ] || { echo "slurm-local: still running:$left" >&2; return 1; }
    rm -f "$dir/daemons.pid"
    echo "slurm-local: down ($dir)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
dir=build/slurm-local
case "${1:-}" in --|'') ;; *) dir=$1; shift ;; esac
# absolute: the daemons' command lines name it so (ours())
[ ! -d "$dir" ] || dir=$(cd "$dir" && pwd)
case "$cmd" in
up) up ;;
down) down ;;
run)
    [ "${1:-}" = -- ] && shift
    [ $# -gt 0 ] || usage "run: expected a command after --, found none"
    # whatever happens from here on, the command and the daemons started here are stopped
    child=
    trap 'st=$?; trap - EXIT; [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true
          down || st=1; exit $st' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    ( up ) || exit 1
    dir=$(cd "$dir" && pwd)
    # in the background, so that a signal reaches the traps at once (wait returns)
    SLURM_CONF="$dir/etc/slurm.conf" "$@" &
    child=$!
    rc=0
    wait "$child" || rc=$?
    child=
    exit $rc
    ;;
*) usage "expected up, down or run, found '$cmd'" ;;
esac
