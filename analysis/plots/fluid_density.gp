# fluid_density: Position Based Fluids' density error vs iterations, substeps, epsilon and
# s_corr (the rest column), the volume over time, the rest column's pressure vs rho0 g depth.
# /tables/runs columns: 1 dam, 2 iterations, 3 substeps, 4 epsilon, 5 s_corr, 6 xpbd,
# 7 error_mean, 8 error_max, 9 volume_ratio, 10 height_ratio, 11 pressure_slope.
load 'analysis/plots/common.gp'
subs = values('/tables/runs', 3)
dams = system(sprintf("%s/pbd-h5extract '%s' /tables/runs 2>/dev/null | awk 'NR > 1 && $1 == 1 { print $2 }' | sort -g | uniq | tr '\\n' ' '", bin, summary))
rests = system(sprintf("%s/pbd-h5extract '%s' /tables/runs 2>/dev/null | awk 'NR > 1 && $1 == 0 && $4 == 100 && $5 == 0 && $6 == 0 { print $2 }' | sort -g | uniq | tr '\\n' ' '", bin, summary))
rest4s = system(sprintf("%s/pbd-h5extract '%s' /tables/runs 2>/dev/null | awk 'NR > 1 && $1 == 0 && $2 == 4 && $3 == 1 { print $4 }' | sort -g | uniq | tr '\\n' ' '", bin, summary))
base(d, s) = ($1 == d && $3 == s && $4 == 100 && $5 == 0 && $6 == 0)

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'fluid_density_iterations'
    set title 'PBF rest column: density error vs iterations (mean over the second half of the run)'
    set xlabel 'solver iterations per (sub)step'
    set ylabel 'density error |ρ/ρ_0 - 1| (% of ρ_0)'
    set logscale xy 2
    if (rests eq '') { eval nodata('no plain rest-column runs (epsilon 100, PBD) in this sweep') } else {
    plot for [s in subs] h5(summary, '/tables/runs') using 2:(base(0, num(s)) ? 100 * $7 : NaN) \
             title 'mean, '.s.' substep(s)', \
         for [s in subs] h5(summary, '/tables/runs') using 2:(base(0, num(s)) ? 100 * $8 : NaN) \
             dt 2 title 'max, '.s.' substep(s)'
    }
    unset logscale

    call 'analysis/plots/output.gp' fmt 'fluid_density_epsilon'
    set title 'PBF rest column at 4 iterations: relaxation ε, s_{corr} and the XPBD form'
    set xlabel 'relaxation ε (1/m^2; XPBD: α = ε w h^2)'
    set ylabel 'density error (% of ρ_0)'
    set logscale x 10
    set logscale y 2
    if (rest4s eq '') { eval nodata('no rest-column runs at 4 iterations, 1 substep') } else {
    plot h5(summary, '/tables/runs') using 4:(($1 == 0 && $2 == 4 && $3 == 1 && $5 == 0 && $6 == 0) ? 100 * $7 : NaN) title 'mean (PBD, no s_{corr})', \
         h5(summary, '/tables/runs') using 4:(($1 == 0 && $2 == 4 && $3 == 1 && $5 == 0 && $6 == 0) ? 100 * $8 : NaN) dt 2 title 'max (PBD, no s_{corr})', \
         h5(summary, '/tables/runs') using 4:(($1 == 0 && $2 == 4 && $5 == 1) ? 100 * $7 : NaN) with points pt 7 ps 1.5 title 'mean, with s_{corr}', \
         h5(summary, '/tables/runs') using 4:(($1 == 0 && $2 == 4 && $6 == 1) ? 100 * $7 : NaN) with points pt 5 ps 1.5 title 'mean, XPBD compliance form'
    }
    unset logscale

    call 'analysis/plots/output.gp' fmt 'fluid_density_volume'
    set title 'Volume over time: dam break (interior ρ_0/ρ) and rest column (mean height)'
    set xlabel 'time (s)'
    set ylabel 'V / V_0'
    files = ''
    do for [it in dams] { files = files.' dam_it'.it }
    if (file_exists(dir.'/dam_it4_scorr.h5')) { files = files.' dam_it4_scorr' }
    do for [s in subs] { files = files.' rest_it4_sub'.s }
    ok = ''
    do for [f in files] { if (file_exists(dir.'/'.f.'.h5')) { ok = ok.' '.f } }
    if (ok eq '') { eval nodata('no runs of this sweep here') } else {
    plot for [f in ok] h5(dir.'/'.f.'.h5', '/series/time '.(f[1:3] eq 'dam' ? '/series/volume_ratio' : '/series/height_ratio')) \
             using 1:2 with lines title f noenhanced
    }

    call 'analysis/plots/output.gp' fmt 'fluid_density_pressure'
    set title 'Rest column (4 iterations, 1 substep): pressure -λ/(h^2 V) by depth'
    set xlabel 'depth below the surface (m)'
    set ylabel 'pressure (Pa)'
    if (values('/tables/pressure', 1) eq '') { eval nodata('run rest_it4_sub1 not in this sweep') } else {
    plot h5(summary, '/tables/pressure') using 1:2 title 'PBF, layer mean', \
         h5(summary, '/tables/pressure') using 1:3 with lines dt 2 lc rgb 'gray40' title 'ρ_0 g depth'
    }
}
