# solver_families: per scene, the distance to the Newton step and h^2 |grad G| vs
# iterations, and the distance vs wall time, for every method that takes the scene.
load 'analysis/plots/common.gp'
scenes = 'cloth beam_snh beam_corotated chain bend_cloth'
titles = 'cloth~(springs) tet~beam,~Stable~Neo-Hookean tet~beam,~corotated~(nu~=~0) hard~chain,~1:1000~mass~ratio bending~cloth'
methods = 'pbd xpbd xpbd_substeps vbd vbd_chebyshev avbd pd newton'
present = values('/tables/time_to_accuracy', 1)
run(s, m) = dir.'/'.s.'_'.m.'.h5'
ok(s, m) = file_exists(run(s, m))
# the iterative methods with a run of scene s
runs(s) = system(sprintf("for m in %s; do [ $m != newton ] && [ -f '%s/%s_'$m.h5 ] && echo $m; done | tr '\\n' ' '", methods, dir, s))
ttl(k) = system(sprintf("echo '%s' | cut -d' ' -f%d | tr '~' ' '", titles, k))

do for [fmt in 'png svg'] {
    do for [k = 1:words(scenes)] {
        s = word(scenes, k)
        call 'analysis/plots/output.gp' fmt 'solver_families_'.s.'_iterations'
        # the chain's hard constraints have no finite G: its figure is the distance alone
        set multiplot layout 1, (s eq 'chain' ? 1 : 2) title 'Distance to the exact implicit step, '.ttl(k).(s eq 'chain' ? ' (hard constraints: no residual G)' : '')
        set logscale xy
        set key inside bottom left box opaque font ',9'
        set xlabel 'iterations per step (xpbd\_substeps: substeps)'
        set ylabel 'max |x - x*| (m)'
        set title 'distance to the Newton step'
        if (!has(present, k - 1) || runs(s) eq '') { eval nodata('no runs of '.s) } else {
        plot for [m in runs(s)] h5(run(s, m), '/series/iterations /series/distance') using 1:2 title m noenhanced }
        set ylabel 'h^2 |∇G| = |M(x - x̃) + h^2 Σ C∇C/α| (kg m)'
        set title 'residual of the implicit step'
        if (s ne 'chain') {
        if (!has(present, k - 1) || runs(s) eq '') { eval nodata('no runs of '.s) } else {
        plot for [m in runs(s)] h5(run(s, m), '/series/iterations /series/gradient_residual') using 1:2 title m noenhanced } }
        unset multiplot
        set key outside right top box opaque font ',11'
        call 'analysis/plots/output.gp' fmt 'solver_families_'.s.'_time'
        tn = ok(s, 'newton') ? sprintf("Newton's own solve: %.3g s", real(system(sprintf("%s/pbd-h5extract '%s' /series/wall_seconds | tail -1", bin, run(s, 'newton'))))) : 'no Newton run'
        set title sprintf("Distance to the exact implicit step vs wall time, %s (%s)", ttl(k), tn)
        set xlabel 'wall time of the step (s)'
        set ylabel 'max |x - x*| (m)'
        if (!has(present, k - 1) || runs(s) eq '') { eval nodata('no runs of '.s) } else {
        plot for [m in runs(s)] h5(run(s, m), '/series/wall_seconds /series/distance') using 1:2 title m noenhanced }
        unset logscale
    }
}
