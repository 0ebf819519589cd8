# rigid_pendulum: XPBD rigid bodies. Left: the hinged box pendulum's energy drift (of the
# swing energy) over the run against substeps at equal cost substeps x iterations. Right: the
# triple pendulum's largest angle error against the Lagrangian reference vs substeps (1
# iteration), with a first-order guide.
load 'analysis/plots/common.gp'
singles = values('/tables/single_energy_drift', 1)
triples = values('/tables/triple_angle_error', 1)
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rigid_pendulum_energy'
    set title 'Hinged box pendulum: energy drift at equal cost substeps x iterations'
    set xlabel 'substeps (iterations = cost / substeps)'
    set ylabel 'max |E - E_0| / swing energy (1)'
    set logscale xy
    if (words(singles) == 0) { eval nodata('no single pendulum runs') } else {
    plot h5(summary, '/tables/single_energy_drift') using 1:3 title 'XPBD rigid' with linespoints lw 2 pt 7
    }
    unset logscale
    call 'analysis/plots/output.gp' fmt 'rigid_pendulum_triple'
    set title 'Triple pendulum: angle error vs an independent Lagrangian integration (2 s)'
    set xlabel 'substeps per step (dt = 1/60 s, 1 iteration)'
    set ylabel 'max angle error (rad)'
    set logscale xy
    if (words(triples) == 0) { eval nodata('no triple pendulum runs') } else {
    plot h5(summary, '/tables/triple_angle_error') using 1:2 title 'XPBD rigid' with linespoints lw 2 pt 7, 2.0 / x title 'first order: 2 / substeps' lc black dt 3
    }
    unset logscale
}
