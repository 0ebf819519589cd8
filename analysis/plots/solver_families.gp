# solver_families: per scene, the distance to the Newton step and h^2 |grad G| vs
# iterations, and the distance vs wall time, for every method that takes the scene.
load 'analysis/plots/common.gp'
scenes = 'cloth beam_snh beam_corotated chain bend_cloth drape'
titles = 'cloth~(springs) tet~beam,~Stable~Neo-Hookean tet~beam,~corotated~(nu~=~0) hard~chain,~1:1000~mass~ratio bending~cloth drape~(contacts;~each~method~against~its~own~converged~step)'
methods = 'pbd xpbd xpbd_substeps vbd vbd_chebyshev avbd pd newton'
present = values('/tables/time_to_accuracy', 1)
# runs are named SCENE_METHOD_tT (T threads); the distances do not depend on T, so the
# iteration figures draw the fewest threads' runs and the time figures every T
threads = values('/tables/time_to_accuracy', 3)
t1 = words(threads) > 0 ? word(threads, 1) : '1'
run(s, m) = dir.'/'.s.'_'.m.'_t'.t1.'.h5'
ok(s, m) = file_exists(run(s, m))
# the iterative methods with a run of scene s (on the fewest threads)
runs(s) = system(sprintf("for m in %s; do [ $m != newton ] && [ -f '%s/%s_'$m'_t%s.h5' ] && echo $m; done | tr '\\n' ' '", methods, dir, s, t1))
# METHOD_tT of every iterative run of scene s, on every thread count
timed(s) = system(sprintf("for t in %s; do for m in %s; do [ $m != newton ] && [ -f '%s/%s_'$m'_t'$t.h5 ] && echo $m'_t'$t; done; done | tr '\\n' ' '", threads, methods, dir, s))
ttl(k) = system(sprintf("echo '%s' | cut -d' ' -f%d | tr '~' ' '", titles, k))

do for [fmt in 'png svg'] {
    do for [k = 1:words(scenes)] {
        s = word(scenes, k)
        call 'analysis/plots/output.gp' fmt 'solver_families_'.s.'_iterations'
        # the chain's hard constraints and the drape's contacts have no finite G: their
        # figure is the distance alone
        single = s eq 'chain' || s eq 'drape'
        set multiplot layout 1, (single ? 1 : 2) title (s eq 'drape' ? 'Distance to the converged step, ' : 'Distance to the exact implicit step, ').ttl(k).(s eq 'chain' ? ' (hard constraints: no residual G)' : '')
        set logscale xy
        set key inside bottom left box opaque font ',9'
        set xlabel 'iterations per step (xpbd\_substeps: substeps)'
        set ylabel 'max |x - x*| (m)'
        set title (s eq 'drape' ? "distance to the method's own step at 4x the largest N" : 'distance to the Newton step')
        if (!has(present, k - 1) || runs(s) eq '') { eval nodata('no runs of '.s) } else {
        plot for [m in runs(s)] h5(run(s, m), '/series/iterations /series/distance') using 1:2 title m noenhanced }
        set ylabel 'h^2 |∇G| = |M(x - x̃) + h^2 Σ C∇C/α| (kg m)'
        set title 'residual of the implicit step'
        if (!single) {
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
        plot for [r in timed(s)] h5(dir.'/'.s.'_'.r.'.h5', '/series/wall_seconds /series/distance') using 1:2 title r noenhanced dt 2 - (strstrt(r.' ', '_t'.t1.' ') > 0) }
        unset logscale
    }
}
