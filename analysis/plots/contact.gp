# contact: the contact scenes against closed forms and conservation laws.
# contact_error: relative error of the slide distance v0^2/(2 mu_k g), the ramp slide
#   1/2 g (sin - mu_k cos) t^2 and the bounce (the apex ratio farthest from e^2) vs substeps;
#   dashed the fewer iterations (under the solid line: a block's contacts are met in one sweep).
# contact_tilt: distance slid in 1 s vs tan(theta)/mu_s against the closed form (0 below 1).
# contact_bounce: apex of each bounce (m) against e^(2k) h.
# contact_penetration: penetration of the resting cloth after the last solve (m) vs
#   iterations, Jacobi against g h^2 r^k (1 - r^kN)/(1 - r^k); Gauss-Seidel's is 0.
# contact_self_collision: crossings of cloth_fold over the run, self collision on and off.
# contact_coupling: momentum of cloth and body along y (N s) over the impact, gravity off.
load 'analysis/plots/common.gp'
its = values('/tables/errors', 3)
cases = values('/tables/errors', 1)
names = 'slide bounce ramp'
most = word(its, words(its))
ptype(c) = int(num(c)) * 2 + 5
dash(i) = num(i) == num(most) ? 1 : 2
lcol(c) = int(num(c)) + 1
tilts = values('/tables/tilt', 1)
bsubs = values('/tables/bounces', 1)
psubs = values('/tables/penetration', 2)
n_jacobi = int(system(sprintf("%s/pbd-h5extract '%s' /tables/penetration 2>/dev/null | awk 'NR > 1 && $1 == 1' | wc -l", bin, summary)))
fsubs = values('/tables/self_collision', 2)
runs = attr(summary, 'runs_merged')
has_run(r) = has(runs, r)
coupling_run = has_run('coupling_sphere_s4') ? 'coupling_sphere_s4' : has_run('coupling_box_s4') ? 'coupling_box_s4' : ''
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'contact_error'
    set title 'Friction and restitution against closed forms (cloth\_ground\_slide, dt = 1/60 s)'
    set xlabel 'substeps per step'
    set ylabel 'relative error |measured - closed form| / closed form (1)'
    set logscale xy
    if (words(cases) == 0) { eval nodata('no slide, bounce or ramp runs') } else {
    plot for [c in cases] for [i in its] h5(summary, '/tables/errors') using 2:(($1 == num(c) && $3 == num(i)) ? $5 : NaN) title sprintf('%s, %s iteration(s)', word(names, int(num(c)) + 1), i) lw 2 pt ptype(c) lc lcol(c) dt dash(i), 0.02 / x title 'first order: 0.02 / substeps' lc black dt 3
    }
    unset logscale

    call 'analysis/plots/output.gp' fmt 'contact_tilt'
    set title 'Block on a ramp ({/Symbol m}_s = 0.5, {/Symbol m}_k = 0.4, 4 substeps x 4 iterations)'
    set xlabel 'tan {/Symbol q} / {/Symbol m}_s (1)'
    set ylabel 'distance slid along the slope in 1 s (m)'
    if (words(tilts) == 0) { eval nodata('no tilt runs') } else {
    plot h5(summary, '/tables/tilt') using 1:2 title 'measured' with points pt 7 ps 1.2, \
         h5(summary, '/tables/tilt') using 1:3 title 'closed form: 0 below 1, g (sin {/Symbol q} - {/Symbol m}_k cos {/Symbol q}) t^2/2 above' with points pt 6 ps 2 lc black
    }

    call 'analysis/plots/output.gp' fmt 'contact_bounce'
    set title 'Bounces from 1 m, e = 0.6 (cloth\_ground\_slide): apex of each bounce'
    set xlabel 'bounce'
    set ylabel 'apex height y + v_y^2/(2g) (m)'
    set logscale y
    set xtics 1
    if (words(bsubs) == 0) { eval nodata('no bounce runs') } else {
    plot for [s in bsubs] h5(summary, '/tables/bounces') using 3:($1 == num(s) && $2 == num(most) ? $4 : NaN) title sprintf('%s substeps', s) lw 2, \
         [1:3] 0.36 ** x title 'e^{2k} h' with lines lc black dt 2
    }
    unset logscale
    set xtics autofreq

    call 'analysis/plots/output.gp' fmt 'contact_penetration'
    set title 'Resting 8 x 8 cloth: penetration after the last solve (Gauss-Seidel: 0 m)'
    set xlabel 'iterations per substep'
    set ylabel 'largest penetration max(0, -d) (m)'
    set logscale xy
    if (n_jacobi == 0) { eval nodata('no Jacobi rest runs') } else {
    plot for [s in psubs] h5(summary, '/tables/penetration') using 3:($1 == 1 && $2 == num(s) ? $5 : NaN) title sprintf('Jacobi, %s substeps', s) lw 2 pt 7, \
         for [s in psubs] h5(summary, '/tables/penetration') using 3:($1 == 1 && $2 == num(s) ? $6 : NaN) title sprintf('g h^2 r^k (1 - r^{kN})/(1 - r^k), %s substeps', s) with lines dt 2 lc black
    }
    unset logscale

    call 'analysis/plots/output.gp' fmt 'contact_self_collision'
    set title 'cloth\_fold: vertex-triangle crossings over 1.5 s (PBD Sec. 4.3 claims 0)'
    set xlabel 'iterations per substep'
    set ylabel 'crossings over the run (count)'
    set logscale x
    set yrange [-5:*]
    if (words(fsubs) == 0) { eval nodata('no fold runs') } else {
    plot for [s in fsubs] h5(summary, '/tables/self_collision') using 3:($1 == 0 && $2 == num(s) ? $4 : NaN) title sprintf('self collision off, %s substeps', s) lw 2 pt 6, \
         for [s in fsubs] h5(summary, '/tables/self_collision') using 3:($1 == 1 && $2 == num(s) ? $4 : NaN) title sprintf('self collision on, %s substeps', s) lw 2 pt 7
    }
    unset logscale
    set yrange [*:*]

    call 'analysis/plots/output.gp' fmt 'contact_coupling'
    set title sprintf('Two-way coupling, gravity off (%s): linear momentum along y', coupling_run) noenhanced
    set xlabel 'time (s)'
    set ylabel 'momentum along y (N s)'
    if (coupling_run eq '') { eval nodata('no coupling run at 4 substeps') } else {
    f = dir.'/'.coupling_run.'.h5'
    plot h5(f, '/series/time /series/measured /series/linear_momentum') using 1:2 title 'rigid body M V' lw 2, \
         h5(f, '/series/time /series/measured /series/linear_momentum') using 1:4 title 'cloth {/Symbol S} m v' lw 2, \
         h5(f, '/series/time /series/measured /series/linear_momentum') using 1:($2 + $4) title 'cloth + body' lw 2 lc black
    }
}
