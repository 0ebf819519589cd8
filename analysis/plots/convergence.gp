# convergence: residual per iteration of each scheme (one step from the same state), the
# Newton reference's residual per Newton iteration, and the distance to the Newton step.
load 'analysis/plots/common.gp'
runs = attr(summary, 'runs_merged')
label(r, s) = r[strlen(s) + 2:]
scene_name(s) = (s eq 'tet_beam' ? 'tet beam' : s)
scenes = 'cloth tet_beam'

# Residuals per constraint set, each in its unit (never summed across units): the cloth has
# distances (m), the beam distances (m) and tet volumes (m^3).
sets(sc) = sc eq 'cloth' ? '00_distance' : '00_distance 01_tet_volume'
unit(s) = strstrt(s, 'tet_volume') ? 'm^3' : 'm'
suffix(s) = s eq '00_distance' ? '' : '_'.s

do for [fmt in 'png svg'] {
    do for [sc in scenes] {
        sruns = ''
        do for [r in runs] { if (strstrt(r, sc.'_') == 1) { sruns = sruns.' '.r } }
        first = word(sruns, 1)
        do for [set in sets(sc)] {
            call 'analysis/plots/output.gp' fmt 'convergence_'.sc.'_residual'.suffix(set)
            set title sprintf('%s, set %s: residual after each iteration of one step (XPBD), and Newton', sc, set) noenhanced
            set xlabel 'iteration (XPBD sweep or Newton step)'
            set ylabel sprintf('||C + α̃ λ||_2 of the set (%s); Newton: ||(g, h)||_2', unit(set))
            set logscale xy
            set style data lines
            if (sruns eq '') { eval nodata('no '.sc.' run merged in '.dir) } else {
            plot for [r in sruns] h5(dir.'/'.r.'.h5', '/iterations/sets/'.set.'/xpbd_residual --row=-1') \
                     using 1:2 title label(r, sc) noenhanced, \
                 h5(dir.'/'.first.'.h5', '/results/newton_residual') using ($0 + 1):1 \
                     title 'Newton reference (all sets)' with linespoints lw 2 lc rgb 'black'
            }
        }
        set style data linespoints

        call 'analysis/plots/output.gp' fmt 'convergence_'.sc.'_distance'
        set title sprintf('%s: RMS distance of the step with k iterations to the Newton step', scene_name(sc))
        set xlabel 'iterations per step k'
        set ylabel 'RMS |x_k - x_{Newton}| (m)'
        if (sruns eq '') { eval nodata('no '.sc.' run merged in '.dir) } else {
        plot for [r in sruns] h5(dir.'/'.r.'.h5', '/series/iterations_k /series/rms_distance_to_newton') \
                 using 1:2 title label(r, sc) noenhanced
        }
        unset logscale
    }
}
