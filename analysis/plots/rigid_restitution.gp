# rigid_restitution: a ball dropped from 1 m: the largest relative error of its first three
# bounce apexes against e^(2n) h0 vs substeps, one line per restitution coefficient.
load 'analysis/plots/common.gp'
es = values('/tables/bounces', 1)
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rigid_restitution_error'
    set title 'Ball dropped from 1 m: bounce apexes against e^{2n} h_0 (3 bounces)'
    set xlabel 'substeps per step (dt = 1/60 s, 1 iteration)'
    set ylabel 'largest relative error of an apex (1)'
    set logscale xy
    if (words(es) == 0) { eval nodata('no runs') } else {
    plot for [e in es] h5(summary, '/tables/bounces') using 2:(abs($1 - num(e)) < 1e-9 ? $6 : NaN) title sprintf('e = %s', e) with linespoints lw 2 pt 7, \
         0.06 / x title 'first order: 0.06 / substeps' lc black dt 3
    }
    unset logscale
}
