# The sweep manifest, RESULTS/sweep.manifest: the run list and the flags of a sweep, frozen
# when `make experiments` starts it (locally: run_all.sh; on Slurm: slurm.sh submit). Every
# run, every array task and the merge read their flags from it, so that no flag is repeated
# by hand. Sourced (POSIX sh) by run_all.sh, slurm.sh and analysis/make_plots.sh.
#
# Format, one record a line, fields separated by one tab; '#' lines are comments:
#   root        <absolute path of the repository: the jobs' working directory>
#   bin         <absolute path of the directory holding pbd-run, pbd-h5extract, pbd-report>
#   out         <the results directory, as given (relative to root)>
#   flags       <flags every pbd-run invocation of the sweep carries, e.g. --quick>
#   experiment  <name>  <timing: 1 = measures wall time>  <number of runs>
#   run         <experiment>  <index, 1-based within the experiment>  <run name>
# Every invocation is `pbd-run <experiment> [--only=<run> | --summarize] FLAGS --out=OUT`.

# manifest_write BIN_DIR OUT FLAGS ROOT: enumerate every experiment's runs with FLAGS (pbd-run
# <experiment> --list FLAGS) and write OUT/sweep.manifest atomically. Fails with one line when
# pbd-run cannot list a sweep.
manifest_write() {
    _mw_bin=$1 _mw_out=$2 _mw_flags=$3 _mw_root=$4
    _mw_file=$_mw_out/sweep.manifest
    _mw_tmp=$_mw_file.tmp-$$
    mkdir -p "$_mw_out" || return 1
    {
        echo "# pbdlab sweep manifest: written $(date -u '+%Y-%m-%d %H:%M:%S UTC') by $0;"
        echo "# every run of the sweep is: pbd-run <experiment> --only=<run> FLAGS --out=OUT"
        printf 'root\t%s\nbin\t%s\nout\t%s\nflags\t%s\n' "$_mw_root" "$_mw_bin" "$_mw_out" "$_mw_flags"
    } > "$_mw_tmp" || return 1
    _mw_exps=$("$_mw_bin/pbd-run" --list-experiments) || {
        echo "pbd: $_mw_bin/pbd-run --list-experiments failed" >&2
        rm -f "$_mw_tmp"
        return 1
    }
    # one experiment per line: "<name> <timing>"
    while read -r _mw_exp _mw_timing; do
        # shellcheck disable=SC2086 # FLAGS are words
        _mw_runs=$("$_mw_bin/pbd-run" "$_mw_exp" --list $_mw_flags) || {
            echo "pbd: pbd-run $_mw_exp --list $_mw_flags failed" >&2
            rm -f "$_mw_tmp"
            return 1
        }
        _mw_n=$(printf '%s\n' "$_mw_runs" | grep -c . || true)
        printf 'experiment\t%s\t%s\t%s\n' "$_mw_exp" "$_mw_timing" "$_mw_n" >> "$_mw_tmp"
        printf '%s\n' "$_mw_runs" | grep . |
            awk -v e="$_mw_exp" '{ printf "run\t%s\t%d\t%s\n", e, NR, $0 }' >> "$_mw_tmp"
    done <<EOF
$_mw_exps
EOF
    mv "$_mw_tmp" "$_mw_file"
}

# manifest_get MANIFEST KEY: the value of a one-field record (root, bin, out, flags).
manifest_get() {
    awk -F '\t' -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# manifest_experiments MANIFEST: "<name> <timing> <n_runs>" per experiment, in order.
manifest_experiments() {
    awk -F '\t' '$1 == "experiment" { print $2, $3, $4 }' "$1"
}

# manifest_runs MANIFEST EXPERIMENT: "<index> <run>" per run of the experiment.
manifest_runs() {
    awk -F '\t' -v e="$2" '$1 == "run" && $2 == e { print $3, $4 }' "$1"
}

# run_complete BIN_DIR FILE: true when FILE is a complete run file (attribute complete = 1);
# a missing file, a <run>.partial.h5 or a file cut short (complete = 0 or absent) is not.
run_complete() {
    [ -f "$2" ] && [ "$("$1/pbd-h5extract" "$2" --attr complete 2>/dev/null)" = 1 ]
}
