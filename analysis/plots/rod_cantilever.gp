# rod_cantilever: a Cosserat rod (L = 1 m) clamped horizontally, bent by its weight. Tip
# deflection vs iterations per step (PBD, XPBD) against the elastica, and XPBD's relative
# error against the elastica (clamped at the first segment's middle, plus shear).
# Columns of /tables/tip: load xpbd segments iterations tip elastica small relative_error.
load 'analysis/plots/common.gp'
loads = values('/tables/tip', 1)
its = values('/tables/tip', 4)
nseg = attr(summary, 'segments')
# rows of /tables/tip where the awk condition holds
rows(cond) = int(system(sprintf("%s/pbd-h5extract '%s' /tables/tip 2>/dev/null | awk 'NR > 1 && (%s)' | wc -l", bin, summary, cond)))
n_base = rows(sprintf('$3 == %s', nseg eq '' ? '0' : nseg))
n_xpbd = rows('$2 == 1')
set logscale x
if (words(its) > 0) { set xrange [real(word(its, 1)) / 1.5 : real(word(its, words(its))) * 1.5] }

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'rod_cantilever_iterations'
    set title sprintf('Cosserat cantilever (%s segments): tip deflection vs iterations per step', nseg)
    set xlabel 'solver iterations per step'
    set ylabel 'tip deflection δ (m, L = 1 m)'
    if (n_base == 0) { eval nodata(sprintf('no runs at %s segments', nseg)) } else {
    plot for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 1 && $3 == num(nseg) ? $5 : NaN) title 'XPBD, Λ = '.l, \
         for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 0 && $3 == num(nseg) ? $5 : NaN) dt 3 title 'PBD (k = 1), Λ = '.l, \
         for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $3 == num(nseg) ? $6 : NaN) with lines dt 2 lc rgb 'gray40' title 'elastica, Λ = '.l
    }

    call 'analysis/plots/output.gp' fmt 'rod_cantilever_error'
    set title 'XPBD tip deflection against the elastica (clamped at the first segment''s middle, plus shear)'
    set ylabel 'relative error δ/δ_{elastica} - 1 (%)'
    if (n_xpbd == 0) { eval nodata('no XPBD runs') } else {
    plot for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 1 && $3 == num(nseg) ? 100 * $8 : NaN) \
             title sprintf('Λ = %s, %s segments', l, nseg), \
         for [l in loads] h5(summary, '/tables/tip') \
             using 4:($1 == num(l) && $2 == 1 && $3 != num(nseg) ? 100 * $8 : NaN) with points pt 6 \
             title sprintf('Λ = %s, other segment counts', l), \
         0 with lines lc rgb 'gray50' notitle
    }
}
