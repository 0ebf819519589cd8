# chain_forces: the top particle's force over time, and its error vs iterations (with the paper's).
load 'analysis/plots/common.gp'
its = values('/tables/errors', 1)
first = dir.'/xpbd_it'.word(its, 1).'.h5'
$paper << EOD
50 6
100 2
1000 0.5
EOD

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'chain_forces_force'
    set title 'Force on the fixed top particle of a 20-particle chain released horizontally'
    set xlabel 'time t (s)'
    set ylabel 'constraint force |λ|/Δt^2 (N)'
    set style data lines
    plot h5(first, '/series/time /series/force_newton') using 1:2 title 'Newton reference' lw 2.5 lc rgb 'black', \
         for [n in its] h5(dir.'/xpbd_it'.n.'.h5', '/series/time /series/force_xpbd') using 1:2 title 'XPBD, '.n.' iterations'
    set style data linespoints

    call 'analysis/plots/output.gp' fmt 'chain_forces_error'
    set title 'Relative error of the top force vs the Newton reference (mean over 100 frames)'
    set xlabel 'XPBD iterations per step'
    set ylabel 'mean |f_{XPBD} - f_{Newton}| / |f_{Newton}| (%)'
    set logscale xy
    plot h5(summary, '/tables/errors') using 1:($2 * 100) title 'ours' pt 7 ps 1.3, \
         $paper using 1:2 title 'XPBD paper (Fig. 3-4)' with points pt 6 ps 2 lc rgb 'red'
    unset logscale
}
