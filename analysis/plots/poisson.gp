# poisson: the stretched bar's effective Poisson ratio and volume ratio against nu, with theory.
load 'analysis/plots/common.gp'
# with the raw Lame lambda the SNH energy acts as (mu, lambda - mu): nu_eff = (lambda - mu)/(2 lambda)
raw(nu) = nu <= 0.125 ? NaN : (4 * nu - 1) / (4 * nu)
set samples 400
do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'poisson_ratio'
    set title 'Stable Neo-Hookean bar stretched 5 % (XPBD): effective Poisson ratio -lnλ_l / lnλ_a'
    set xlabel 'Poisson ratio ν of the material'
    set ylabel 'effective Poisson ratio of the middle half'
    set xrange [0:0.5]
    set yrange [0:0.55]
    plot x title 'theory (small strain): ν' lw 2 lc rgb 'black', \
         raw(x) title 'theory with raw λ: (λ - μ)/(2λ)' lw 2 lc rgb 'gray' dt 2, \
         h5(summary, '/tables/poisson') using 3:($2 == 0 ? $4 : NaN) title 'matched λ_{SNH} = λ + μ' pt 7 ps 1.4, \
         h5(summary, '/tables/poisson') using 3:($2 == 1 ? $4 : NaN) title 'raw λ_{SNH} = λ' pt 6 ps 1.4, \
         h5(summary, '/tables/poisson') using 3:($2 == 0 ? $8 : NaN) title 'matched, static equilibrium (Newton)' pt 4 ps 1.8 lc rgb 'black', \
         h5(summary, '/tables/poisson') using 3:($2 == 1 ? $8 : NaN) title 'raw, static equilibrium (Newton)' pt 12 ps 1.8 lc rgb 'black'
    set autoscale xy

    call 'analysis/plots/output.gp' fmt 'poisson_volume'
    set title 'Volume ratio of the middle half of the bar'
    set xlabel 'Poisson ratio ν of the material'
    set ylabel 'V / V_0'
    set xrange [0:0.5]
    plot h5(summary, '/tables/poisson') using 3:($2 == 0 ? $7 : NaN) title 'theory λ_a^{1-2ν}' with lines lw 2 lc rgb 'black', \
         h5(summary, '/tables/poisson') using 3:($2 == 0 ? $6 : NaN) title 'matched' pt 7 ps 1.4, \
         h5(summary, '/tables/poisson') using 3:($2 == 1 ? $6 : NaN) title 'raw' pt 6 ps 1.4
    set autoscale x
}
