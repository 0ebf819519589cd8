# rod_twist: a straight Cosserat rod (L = 1 m) twisted about its axis, no gravity.
# rod_twist_static: max |theta_i - Phi s_i/L| at rest vs iterations per step (PBD, XPBD; per
# segment count and substeps). rod_twist_wave: XPBD's measured twist-front speed over
# c = sqrt(G J/(rho I_p)) vs the Courant number c h/l. rod_twist_wave_pbd: PBD's front speed
# over c (no material speed: set by the iterations and h).
# Columns of /tables/static: xpbd segments iterations substeps max_deviation steps static;
# of /tables/wave: xpbd segments iterations courant speed analytic_speed speed_ratio
# segments_per_step.
load 'analysis/plots/common.gp'
segs = values('/tables/static', 2)
subs = values('/tables/static', 4)
its = values('/tables/static', 3)
wsegs = values('/tables/wave', 2)
wits = values('/tables/wave', 3)
rows(t, cond) = int(system(sprintf("%s/pbd-h5extract '%s' %s 2>/dev/null | awk 'NR > 1 && (%s)' | wc -l", bin, summary, t, cond)))
n_static = rows('/tables/static', '1')
n_wave = rows('/tables/wave', '$1 == 1')
n_wave_pbd = rows('/tables/wave', '$1 == 0')

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rod_twist_static'
    set title 'Twisted rod at rest: largest deviation from the linear twist θ = Φ s/L'
    set xlabel 'solver iterations per step'
    set ylabel 'max_i |θ_i - Φ s_i/L| (rad)'
    set logscale xy
    set format y '10^{%L}'
    if (words(its) > 0) { set xrange [real(word(its, 1)) / 1.5 : real(word(its, words(its))) * 1.5] }
    if (n_static == 0) { eval nodata('no static runs') } else {
    plot for [n in segs] for [u in subs] h5(summary, '/tables/static') \
             using 3:($1 == 1 && $2 == num(n) && $4 == num(u) ? $5 : NaN) \
             title sprintf('XPBD, %s segments, %s substeps', n, u), \
         for [n in segs] for [u in subs] h5(summary, '/tables/static') \
             using 3:($1 == 0 && $2 == num(n) && $4 == num(u) ? $5 : NaN) dt 3 pt 6 \
             title sprintf('PBD (k = 1), %s segments, %s substeps', n, u)
    }
    unset logscale
    set format y '%g'
    set autoscale x

    call 'analysis/plots/output.gp' fmt 'rod_twist_wave'
    set title 'Twist wave, XPBD: measured front speed over c = (G J/(ρ I_p))^{1/2}'
    set xlabel 'Courant number c h / l (1)'
    set ylabel 'measured speed / c (1)'
    set xrange [0:1.1]
    if (n_wave == 0) { eval nodata('no XPBD wave runs') } else {
    plot for [n in wsegs] for [i in wits] h5(summary, '/tables/wave') \
             using 4:($1 == 1 && $2 == num(n) && $3 == num(i) ? $7 : NaN) \
             title sprintf('%s segments, %s iterations', n, i), \
         1 with lines lc rgb 'gray40' dt 2 title 'analytic'
    }
    set autoscale x

    call 'analysis/plots/output.gp' fmt 'rod_twist_wave_pbd'
    set title 'Twist "wave", PBD (k = 1): how fast Gauss-Seidel carries the turn (no material speed)'
    set xlabel 'c h / l (1), h the time step, c of the XPBD runs'
    set ylabel 'front speed / c (1)'
    set logscale y
    set xrange [0:1.1]
    if (n_wave_pbd == 0) { eval nodata('no PBD wave runs') } else {
    plot for [n in wsegs] for [i in wits] h5(summary, '/tables/wave') \
             using 4:($1 == 0 && $2 == num(n) && $3 == num(i) ? $7 : NaN) \
             title sprintf('%s segments, %s iterations', n, i), \
         1 with lines lc rgb 'gray40' dt 2 title 'c'
    }
    unset logscale
    set autoscale x
}
