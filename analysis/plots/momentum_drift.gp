# momentum_drift: linear and angular momentum drift over time per body and damping model.
load 'analysis/plots/common.gp'
runs = attr(summary, 'runs_merged')
set style data lines

do for [fmt in 'png svg'] {
    do for [q in 'linear angular'] {
        call 'analysis/plots/output.gp' fmt 'momentum_drift_'.q
        set title sprintf('Free bodies, internal constraints only: %s momentum drift', q)
        set xlabel 'time t (s)'
        set ylabel (q eq 'linear' ? '|P(t) - P(0)| / (M v_{rms})' : '|L(t) - L(0)| / |L(0)|')
        set logscale y
        set format y '10^{%L}'
        plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/'.q.'_drift --every 10') \
                 using 1:($2 > 0 ? $2 : 1e-17) title r noenhanced
        unset logscale
        set format y
    }
}
