# material_beam: XPBD's tip deflection against the static Newton solution vs iterations (PBD for
# contrast), the static solution against Euler-Bernoulli vs the mesh, the tip over time.
load 'analysis/plots/common.gp'
names = 'distance-volume neo-hookean stvk corotated strain strain-normalized'
mats = system(sprintf("%s/pbd-h5extract %s /tables/dynamic | awk 'NR>1 {print $1}' | sort -un | tr '\\n' ' '", bin, summary))
smats = system(sprintf("%s/pbd-h5extract %s /tables/static | awk 'NR>1 {print $1}' | sort -un | tr '\\n' ' '", bin, summary))
# the Timoshenko / Euler-Bernoulli ratio of the beam (the same for every run)
eb_t = num(system(sprintf("%s/pbd-h5extract %s /tables/static | awk 'NR==2 {print $5/$4}'", bin, summary)))
sel(m, x) = (column(1) == num(m) && column(2) == x) ? 1 : NaN
# the materials whose 5-iteration run (the tip-over-time figure) is in this sweep
tipm = ''
do for [m in mats] { if (file_exists(dir.'/xpbd_'.word(names, int(num(m)) + 1).'_it5.h5')) { tipm = tipm.' '.m } }
pbd_mats = system(sprintf("%s/pbd-h5extract %s /tables/dynamic | awk 'NR>1 && $2 == 0 {print $1}' | sort -un | tr '\\n' ' '", bin, summary))

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'material_beam_iterations'
    set title 'Cantilever tip deflection / static Newton solution (25 substeps per 1/60 s)'
    set xlabel 'iterations per substep'
    set ylabel 'tip deflection / static equilibrium'
    set logscale xy
    if (words(mats) == 0) { eval nodata('no dynamic runs in this sweep') } else { if (words(pbd_mats) > 0) {
        plot 1 title 'static equilibrium (Newton)' lw 2 lc rgb 'black' dt 2, \
             for [m in mats] h5(summary, '/tables/dynamic') using 3:($6 * sel(m, 1)) \
                 title 'XPBD '.word(names, int(num(m)) + 1) pt 7 ps 1.2, \
             for [m in pbd_mats] h5(summary, '/tables/dynamic') using 3:($6 * sel(m, 0)) \
                 title 'PBD (stiffness k) '.word(names, int(num(m)) + 1) pt 6 ps 1.2 dt 3
    } else { # no PBD runs (QUICK)
        plot 1 title 'static equilibrium (Newton)' lw 2 lc rgb 'black' dt 2, \
             for [m in mats] h5(summary, '/tables/dynamic') using 3:($6 * sel(m, 1)) \
                 title 'XPBD '.word(names, int(num(m)) + 1) pt 7 ps 1.2
    } }
    unset logscale

    call 'analysis/plots/output.gp' fmt 'material_beam_mesh'
    set title 'Static tip deflection / Euler-Bernoulli qL^4/(8EI) as the tet mesh is refined'
    set xlabel 'cubes along the beam (a quarter as many across; 6 tets each)'
    set ylabel 'static tip deflection / Euler-Bernoulli'
    set yrange [0:1.2]
    if (words(smats) == 0) { eval nodata('no static solutions in this sweep') } else {
    plot 1 title 'Euler-Bernoulli' lw 2 lc rgb 'black', \
         eb_t title 'Timoshenko (shear, κ = 5/6)' lw 2 lc rgb 'gray' dt 2, \
         for [m in smats] h5(summary, '/tables/static') using 2:($1 == m ? $6 : NaN) \
             title word(names, int(num(m)) + 1) pt 7 ps 1.2
    }
    set autoscale y

    call 'analysis/plots/output.gp' fmt 'material_beam_tip'
    set title 'Tip deflection over time (XPBD, 5 iterations per substep)'
    set xlabel 'time t (s)'
    set ylabel 'tip deflection (m)'
    set style data lines
    if (words(tipm) == 0) { eval nodata('no 5-iteration XPBD runs in this sweep') } else {
    plot for [m in tipm] h5(dir.'/xpbd_'.word(names, int(num(m)) + 1).'_it5.h5', '/series/time /series/tip_deflection') \
             using 1:2 title word(names, int(num(m)) + 1) lw 1.5
    }
    set style data linespoints
}
