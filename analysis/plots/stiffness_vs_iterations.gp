# stiffness_vs_iterations: sag, stretch and ms/step vs iterations per variant.
load 'analysis/plots/common.gp'
label(v) = v eq 'pbd' ? 'PBD (raw k)' : v eq 'xpbd' ? 'XPBD (matching α)' : 'PBD (linearized k)'
# the variants merged (a table with rows); the cloth's parameters from the first merged run
variants = ''
do for [v in 'pbd pbd_linearized xpbd'] { if (values('/tables/'.v, 1) ne '') { variants = variants.' '.v } }
first = dir.'/'.word(attr(summary, 'runs_merged'), 1).'.h5'
k = attr(first, 'param.stiffness')
r = attr(first, 'param.resolution')

do for [fmt in 'png svg'] {
    set logscale x 2
    call 'analysis/plots/output.gp' fmt 'stiffness_vs_iterations_sag'
    set title sprintf('Hanging cloth %sx%s, k = %s: sag (mean over the second half of the run)', r, r, k)
    set xlabel 'solver iterations per step'
    set ylabel 'sag of the bottom row below its rest height (m)'
    set logscale y
    plot for [v in variants] h5(summary, '/tables/'.v) using 1:2 title label(v)

    call 'analysis/plots/output.gp' fmt 'stiffness_vs_iterations_stretch'
    set title sprintf('Hanging cloth %sx%s, k = %s: mean relative elongation of the constraints', r, r, k)
    set ylabel 'stretch (|d| - d_0)/d_0 (%)'
    plot for [v in variants] h5(summary, '/tables/'.v) using 1:($3 * 100) title label(v)

    call 'analysis/plots/output.gp' fmt 'stiffness_vs_iterations_time'
    set title 'Wall time per step (median; solver stages only)'
    set ylabel 'time per step (ms)'
    plot for [v in variants] h5(summary, '/tables/'.v) using 1:4 title label(v)
    unset logscale
}
