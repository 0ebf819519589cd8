# rigid_stack: boxes at rest for the run: the drift (largest distance of a box from its start)
# of the stack and the pyramid per substeps x iterations pair; the heavy box on light links:
# the largest joint gap vs substeps.
load 'analysis/plots/common.gp'
ns = words(values('/tables/stack', 1))
np = words(values('/tables/pyramid', 1))
nh = words(values('/tables/heavy', 1))
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rigid_stack_drift'
    set title 'Boxes at rest on the ground: drift over the run (exact: 0)'
    set xlabel 'run (substeps x iterations), in table order'
    set ylabel 'largest distance of a box from its start (m)'
    set logscale y
    if (ns + np == 0) { eval nodata('no stack or pyramid runs') } else {
    plot h5(summary, '/tables/stack') using 0:3:xticlabels(sprintf('%dx%d', $1, $2)) title 'stack of 5' with linespoints lw 2 pt 7, \
         h5(summary, '/tables/pyramid') using 0:3 title 'pyramid of 10' with linespoints lw 2 pt 5
    }
    unset logscale
    call 'analysis/plots/output.gp' fmt 'rigid_stack_heavy'
    set title '100 kg box on a chain of 0.1 kg links (ball joints): joint gap'
    set xlabel 'substeps per step (dt = 1/60 s, 1 iteration)'
    set ylabel 'largest joint gap |p_1 - p_2| over 2 s (m)'
    set logscale xy
    if (nh == 0) { eval nodata('no heavy runs') } else {
    plot h5(summary, '/tables/heavy') using 1:2 title 'XPBD rigid' with linespoints lw 2 pt 7
    }
    unset logscale
}
