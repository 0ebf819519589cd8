# rod_cantilever: a Cosserat rod (L = 1 m) clamped horizontally, bent by its weight. Tip
# deflection vs iterations per step (PBD, XPBD) against the elastica, and vs the load
# Λ = w L³/(E I) for the converged XPBD runs against the elastica and w L⁴/(8 E I).
# Columns of /tables/tip: load xpbd segments iterations tip elastica small relative_error.
load 'analysis/plots/common.gp'
loads = values('/tables/tip', 1)
nseg = attr(summary, 'segments')
set logscale x

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rod_cantilever_iterations'
    set title sprintf('Cosserat cantilever (%s segments): tip deflection vs iterations per step', nseg)
    set xlabel 'solver iterations per step'
    set ylabel 'tip deflection {/Symbol d} (m, L = 1 m)'
    plot for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 1 && $3 == num(nseg) ? $5 : NaN) title 'XPBD, {/Symbol L} = '.l, \
         for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 0 && $3 == num(nseg) ? $5 : NaN) dt 3 title 'PBD (k = 1), {/Symbol L} = '.l, \
         for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $3 == num(nseg) ? $6 : NaN) with lines dt 2 lc rgb 'gray40' title 'elastica, {/Symbol L} = '.l

    call 'analysis/plots/output.gp' fmt 'rod_cantilever_error'
    set title 'XPBD tip deflection against the elastica (clamped at the first segment''s middle)'
    set ylabel 'relative error {/Symbol d}/{/Symbol d}_{elastica} - 1 (%)'
    unset logscale y
    plot for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 1 ? 100 * $8 : NaN) title '{/Symbol L} = '.l, \
         0 with lines lc rgb 'gray50' notitle
}
