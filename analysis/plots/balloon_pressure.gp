# balloon_pressure: enclosed volume and skin stretch vs k_pressure, one line per skin stiffness.
load 'analysis/plots/common.gp'
skins = values('/tables/volume', 1)

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'balloon_pressure_volume'
    set title 'Overpressure (PBD Eq. 14-15): enclosed volume vs k_{pressure} (mean over the second half)'
    set xlabel 'overpressure factor k_{pressure}'
    set ylabel 'enclosed volume V / V_0'
    plot x title 'V = k_{pressure} V_0' dt 2 lc rgb 'gray50', \
         for [k in skins] h5(summary, '/tables/volume') using 2:($1 == num(k) ? $3 : NaN) \
             title 'skin stiffness k = '.k

    call 'analysis/plots/output.gp' fmt 'balloon_pressure_stretch'
    set title 'Skin stretch needed to hold the volume'
    set ylabel 'mean edge stretch (|d| - d_0)/d_0 (%)'
    plot for [k in skins] h5(summary, '/tables/volume') using 2:($1 == num(k) ? 100 * $4 : NaN) \
             title 'skin stiffness k = '.k
}
