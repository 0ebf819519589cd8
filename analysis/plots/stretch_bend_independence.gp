# stretch_bend_independence: stretch and bending vs k_stretch, bending on/off, both models.
load 'analysis/plots/common.gp'
label(m, kb) = sprintf('%s, k_{bend} = %g', m == 0 ? 'dihedral' : 'isometric', kb)
models = values('/tables/bag', 1)
kbends = system(sprintf("%s/pbd-h5extract '%s' /tables/bag 2>/dev/null | awk 'NR > 1 { print $3 }' | sort -gr | uniq | tr '\\n' ' '", bin, summary))

do for [fmt in 'png svg'] {
    set logscale x
    set xlabel 'stretch stiffness k_{stretch}'
    call 'analysis/plots/output.gp' fmt 'stretch_bend_independence_stretch'
    set title 'Cloth bag (PBD Fig. 3): stretch vs k_{stretch}, with and without bending'
    set ylabel 'mean edge stretch (%)'
    set logscale y
    plot for [m in models] for [kb in kbends] h5(summary, '/tables/bag') \
             using 2:(($1 == num(m) && $3 == num(kb)) ? 100 * $4 : NaN) title label(num(m), num(kb))
    unset logscale y

    call 'analysis/plots/output.gp' fmt 'stretch_bend_independence_bending'
    set title 'Cloth bag: bending (mean |φ - φ_0| over the interior edges) vs k_{stretch}'
    set ylabel 'mean |φ - φ_0| (rad)'
    plot for [m in models] for [kb in kbends] h5(summary, '/tables/bag') \
             using 2:(($1 == num(m) && $3 == num(kb)) ? $5 : NaN) title label(num(m), num(kb))
    unset logscale
}
