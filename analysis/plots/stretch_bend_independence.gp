# stretch_bend_independence: stretch and bending vs k_stretch, bending on/off, both models.
load 'analysis/plots/common.gp'
label(m, kb) = sprintf('%s, k_{bend} = %g', m == 0 ? 'dihedral' : 'isometric', kb)

do for [fmt in 'png svg'] {
    set logscale x
    set xlabel 'stretch stiffness k_{stretch}'
    call 'analysis/plots/output.gp' fmt 'stretch_bend_independence_stretch'
    set title 'Cloth bag (PBD Fig. 3): stretch vs k_{stretch}, with and without bending'
    set ylabel 'mean edge stretch (%)'
    set logscale y
    plot for [m = 0:1] for [kb in '1 0'] h5(summary, '/tables/bag') \
             using 2:(($1 == m && $3 == real(kb)) ? 100 * $4 : NaN) title label(m, real(kb))
    unset logscale y

    call 'analysis/plots/output.gp' fmt 'stretch_bend_independence_bending'
    set title 'Cloth bag: bending (mean |{/Symbol f} - {/Symbol f}_0| over the interior edges) vs k_{stretch}'
    set ylabel 'mean |{/Symbol f} - {/Symbol f}_0| (rad)'
    plot for [m = 0:1] for [kb in '1 0'] h5(summary, '/tables/bag') \
             using 2:(($1 == m && $3 == real(kb)) ? $5 : NaN) title label(m, real(kb))
    unset logscale
}
