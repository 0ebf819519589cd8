# rigid_free_body: the torque-free asymmetric body (I = 1, 2, 3 kg m^2) spun about its
# intermediate axis: the largest relative drift of |L| and of the kinetic energy over the run
# vs substeps (1 iteration), with a first-order guide.
load 'analysis/plots/common.gp'
subs = values('/tables/drift', 1)
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rigid_free_body_drift'
    set title 'Torque-free asymmetric body: conservation vs substeps (dt = 1/60 s)'
    set xlabel 'substeps per step (1 iteration)'
    set ylabel 'largest relative drift over the run (1)'
    set logscale xy
    if (words(subs) == 0) { eval nodata('no runs') } else {
    plot h5(summary, '/tables/drift') using 1:2 title '|L - L_0| / |L_0|' with linespoints lw 2 pt 7, \
         h5(summary, '/tables/drift') using 1:3 title '|E - E_0| / E_0' with linespoints lw 2 pt 5, \
         0.07 / x title 'first order: 0.07 / substeps' lc black dt 3
    }
    unset logscale
}
