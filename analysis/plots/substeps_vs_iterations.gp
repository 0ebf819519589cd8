# substeps_vs_iterations: constraint error and dissipated energy vs the projection budget.
load 'analysis/plots/common.gp'
label(m) = m eq 'substeps' ? 'N substeps x 1 iteration' : '1 step x N iterations'
# the modes merged (a table with rows)
modes = ''
do for [m in 'substeps iterations'] { if (values('/tables/'.m, 1) ne '') { modes = modes.' '.m } }

do for [fmt in 'png svg'] {
    set logscale x 2
    set xlabel 'projections per constraint and frame, N'
    call 'analysis/plots/output.gp' fmt 'substeps_vs_iterations_error'
    set title 'Same cost, spent as substeps or as iterations (XPBD, α = 0)'
    set ylabel 'max |C| after each frame, mean over the run (m)'
    set logscale y
    plot for [m in modes] h5(summary, '/tables/'.m) using 1:2 title label(m)

    call 'analysis/plots/output.gp' fmt 'substeps_vs_iterations_energy'
    set title 'Energy dissipated by the integrator by the end of the run'
    set ylabel '(E_0 - E_{end}) / (m g L/2)'
    unset logscale y
    plot for [m in modes] h5(summary, '/tables/'.m) using 1:4 title label(m)
    unset logscale
}
