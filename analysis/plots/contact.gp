# contact: the closed forms of friction and restitution (cloth_ground_slide) vs substeps and
# iterations: relative error |measured - expected|/expected of the slide distance
# v0^2/(2 mu_k g), the bounce apex e^2 h and the ramp slide 1/2 g (sin - mu_k cos) t^2; one
# colour per case, dashed the fewer iterations (they lie under the solid line: a block's
# contacts are met in one iteration).
load 'analysis/plots/common.gp'
its = values('/tables/errors', 3)
cases = values('/tables/errors', 1)
names = 'slide bounce ramp'
most = word(its, words(its))
ptype(c) = int(num(c)) * 2 + 5
dash(i) = num(i) == num(most) ? 1 : 2
lcol(c) = int(num(c)) + 1
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'contact_error'
    set title 'Friction and restitution against closed forms (cloth\_ground\_slide, dt = 1/60 s)'
    set xlabel 'substeps per step'
    set ylabel 'relative error |measured - closed form| / closed form (1)'
    set logscale xy
    plot for [c in cases] for [i in its] h5(summary, '/tables/errors') using 2:(($1 == num(c) && $3 == num(i)) ? $7 : NaN) title sprintf('%s, %s iteration(s)', word(names, int(num(c)) + 1), i) lw 2 pt ptype(c) lc lcol(c) dt dash(i), 0.02 / x title 'first order: 0.02 / substeps' lc black dt 3
    unset logscale
}
