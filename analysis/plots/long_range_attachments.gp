# long_range_attachments: the hanging cloth's edge stretch vs iterations, with and without LRA.
load 'analysis/plots/common.gp'
its = system(sprintf("%s/pbd-h5extract %s /tables/stretch | awk 'NR>1 {print $2}' | sort -un | tr '\\n' ' '", bin, summary))
first = word(its, 1)
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'long_range_attachments_stretch'
    set title 'Cloth hanging from two corners (PBD): edge stretch, last half of the run, time-averaged'
    set xlabel 'PBD iterations per step'
    set ylabel 'relative edge stretch (%)'
    set logscale xy
    eval diverged('/tables/stretch', 2, 6)
    plot h5(summary, '/tables/stretch') using 2:($1 == 0 ? 100 * $3 : NaN) title 'max, edges only' pt 7 ps 1.3, \
         h5(summary, '/tables/stretch') using 2:($1 == 1 ? 100 * $3 : NaN) title 'max, with long-range attachments' pt 5 ps 1.3, \
         h5(summary, '/tables/stretch') using 2:($1 == 0 ? 100 * $4 : NaN) title 'mean, edges only' pt 6 ps 1.3 dt 2, \
         h5(summary, '/tables/stretch') using 2:($1 == 1 ? 100 * abs($4) : NaN) title '|mean|, with long-range attachments' pt 4 ps 1.3 dt 2
    unset logscale
    unset label

    call 'analysis/plots/output.gp' fmt 'long_range_attachments_time'
    set title sprintf('Largest edge stretch over time at %s iteration(s)', first)
    set xlabel 'time t (s)'
    set ylabel 'max relative edge stretch (%)'
    set style data lines
    # a run that left its bound ends there: a marker where it diverged
    do for [m in 'plain lra'] {
        f = dir.'/'.m.'_it'.first.'.h5'
        ds = file_exists(f) ? attr(f, 'result.diverged_step') : ''
        if (ds ne '') { set label (m eq 'plain' ? 101 : 102) sprintf('%s: diverged at step %s', m eq 'plain' ? 'edges only' : 'with LRA', ds) \
            at first real(attr(f, 'result.diverged_time')), graph 0.93 point pt 3 ps 2.5 lc rgb 'red' offset -1,-0.2 right tc rgb 'red' font ',9' }
    }
    plot h5(dir.'/plain_it'.first.'.h5', '/series/time /series/max_stretch') using 1:(100 * $2) title 'edges only' lw 2, \
         h5(dir.'/lra_it'.first.'.h5', '/series/time /series/max_stretch') using 1:(100 * $2) title 'with long-range attachments' lw 2
    unset label
    set style data linespoints
}
