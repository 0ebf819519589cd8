# rigid_friction: a box on a ramp (mu_s = 0.5, mu_k = 0.4): distance slid in 1 s vs
# tan(theta)/mu_s against the closed form (0 below 1, 1/2 g (sin - mu_k cos) t^2 above); a flat
# box launched at 3 m/s: relative error of its stopping distance against v0^2/(2 mu_k g) vs
# substeps.
load 'analysis/plots/common.gp'
tilts = values('/tables/tilt', 1)
slides = values('/tables/slide', 1)
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rigid_friction_tilt'
    set title 'Box on a ramp ({/Symbol m}_s = 0.5, {/Symbol m}_k = 0.4, 20 substeps x 1 iteration)'
    set xlabel 'tan {/Symbol q} / {/Symbol m}_s (1)'
    set ylabel 'distance slid in 1 s (m)'
    if (words(tilts) == 0) { eval nodata('no tilt runs') } else {
    plot h5(summary, '/tables/tilt') using 1:2 title 'XPBD rigid' with linespoints lw 2 pt 7, \
         h5(summary, '/tables/tilt') using 1:3 title 'closed form' with linespoints lc black dt 2 pt 6
    }
    call 'analysis/plots/output.gp' fmt 'rigid_friction_slide'
    set title 'Box launched at 3 m/s: stopping distance against v_0^2/(2 {/Symbol m}_k g)'
    set xlabel 'substeps per step (dt = 1/60 s, 1 iteration)'
    set ylabel 'relative error of the stopping distance (1)'
    set logscale xy
    if (words(slides) == 0) { eval nodata('no slide runs') } else {
    plot h5(summary, '/tables/slide') using 1:4 title 'XPBD rigid' with linespoints lw 2 pt 7, \
         0.03 / x title 'first order: 0.03 / substeps' lc black dt 3
    }
    unset logscale
}
