# convergence: residual per iteration of each scheme (one step from the same state), the
# Newton reference's residual per Newton iteration, and the distance to the Newton step.
load 'analysis/plots/common.gp'
runs = attr(summary, 'runs_merged')
label(r, s) = r[strlen(s) + 2:]
scene_name(s) = (s eq 'tet_beam' ? 'tet beam' : s)
scenes = 'cloth tet_beam'

do for [fmt in 'png svg'] {
    do for [sc in scenes] {
        call 'analysis/plots/output.gp' fmt 'convergence_'.sc.'_residual'
        set title sprintf('%s: residual after each iteration of one step (XPBD), and Newton', scene_name(sc))
        set xlabel 'iteration (XPBD sweep or Newton step)'
        set ylabel 'residual ||C + {/Symbol a}~ {/Symbol l}||_2 ; Newton: ||(g, h)||_2'
        set logscale xy
        set style data lines
        sruns = ''
        do for [r in runs] { if (strstrt(r, sc.'_') == 1) { sruns = sruns.' '.r } }
        first = word(sruns, 1)
        if (sruns eq '') { eval nodata('no '.sc.' run merged in '.dir) } else {
        plot for [r in sruns] h5(dir.'/'.r.'.h5', '/iterations/xpbd_residual --row=-1') \
                 using 1:2 title label(r, sc) noenhanced, \
             h5(dir.'/'.first.'.h5', '/results/newton_residual') using ($0 + 1):1 \
                 title 'Newton reference' with linespoints lw 2 lc rgb 'black'
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
