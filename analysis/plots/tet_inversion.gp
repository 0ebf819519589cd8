# tet_inversion: inverted fraction and smallest V/V0 over time, per body and constraint set.
load 'analysis/plots/common.gp'
runs = attr(summary, 'runs_merged')
set style data lines

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'tet_inversion_fraction'
    set title 'Inverted tetrahedra recovering (or not) under each constraint set'
    set xlabel 'time t (s)'
    set ylabel 'fraction of tets with V/V_0 < 0'
    set logscale x
    set yrange [-0.05:1.05]
    plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/inverted_fraction') \
             using 1:2 title r noenhanced lw 2
    set autoscale y

    call 'analysis/plots/output.gp' fmt 'tet_inversion_volume'
    set title 'Smallest volume ratio over the tets'
    set ylabel 'min V/V_0'
    plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/min_volume_ratio') \
             using 1:2 title r noenhanced lw 2
}
