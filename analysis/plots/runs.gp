# runs: generic figures of a directory of one's own runs (analysis/plot_runs.sh), one curve per
# run: each constraint set's max |C| in its unit, the total energy and the momenta vs time.
# Called with bin, dir, fig, name (the directory's name), runs (run names) and sets (the
# /series/sets/<set> names of the first run).
load 'analysis/plots/common.gp'
first = dir.'/'.word(runs, 1).'.h5'
unit(d) = attr(first, d.'/units')
set style data lines
set xlabel 'time t (s)'
do for [fmt in 'png svg'] {
    do for [set in sets] {
        call 'analysis/plots/output.gp' fmt name.'_residual_'.set
        set title sprintf('%s: max |C| of set %s after each step', name, set) noenhanced
        set ylabel sprintf('max |C| (%s)', unit('/series/sets/'.set.'/max_c')) noenhanced
        set logscale y
        set format y '10^{%L}'
        plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/sets/'.set.'/max_c') \
             using 1:($2 > 0 ? $2 : NaN) title r noenhanced
        unset logscale
        set format y '%g'
    }
    call 'analysis/plots/output.gp' fmt name.'_energy'
    set title sprintf('%s: total energy (kinetic + gravitational + elastic)', name) noenhanced
    set ylabel sprintf('E (%s)', unit('/series/total_energy')) noenhanced
    plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/total_energy') \
         using 1:2 title r noenhanced
    call 'analysis/plots/output.gp' fmt name.'_momentum'
    set multiplot layout 2, 1 title sprintf('%s: momenta of the particles', name) noenhanced
    unset title
    set ylabel sprintf('|P| (%s)', unit('/series/linear_momentum')) noenhanced
    plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/linear_momentum') \
         using 1:(sqrt($2**2 + $3**2 + $4**2)) title r noenhanced
    set ylabel sprintf('|L| about the origin (%s)', unit('/series/angular_momentum')) noenhanced
    plot for [r in runs] h5(dir.'/'.r.'.h5', '/series/time /series/angular_momentum') \
         using 1:(sqrt($2**2 + $3**2 + $4**2)) title r noenhanced
    unset multiplot
}
