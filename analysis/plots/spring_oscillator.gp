# spring_oscillator: trajectories at 60 Hz, effective stiffness vs iterations, error vs dt.
load 'analysis/plots/common.gp'
its = '1 5 10'
ref = dir.'/xpbd_it1_hz60.h5'

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'spring_oscillator_trajectory'
    set title 'Spring oscillator at dt = 1/60 s: rest 1 m, x_0 = 1.5 m, {/Symbol a} = 0.001 m/N, m = 1 kg'
    set xlabel 'time t (s)'
    set ylabel 'particle position x (m)'
    unset logscale
    set style data lines
    plot h5(ref, '/series/time /series/x_analytic') using 1:2 title 'analytic' lw 2 lc rgb 'black', \
         h5(ref, '/series/time /series/x_backward_euler') using 1:2 title 'backward Euler' dt 2 lw 2 lc rgb 'gray40', \
         for [n in its] h5(dir.'/xpbd_it'.n.'_hz60.h5', '/series/time /series/x') using 1:2 \
             title 'XPBD, '.n.' it.' lw 1.5, \
         for [n in its] h5(dir.'/pbd_it'.n.'_hz60.h5', '/series/time /series/x') using 1:2 \
             title 'PBD, '.n.' it.' dt 3 lw 1.5
    set style data linespoints

    call 'analysis/plots/output.gp' fmt 'spring_oscillator_stiffness'
    set title 'Effective stiffness measured from the trajectory (1/{/Symbol a} = 1000 N/m)'
    set xlabel 'solver iterations per step'
    set ylabel 'k_{eff} = -m {/Symbol D}v / ({/Symbol D}t u) (N/m)'
    set logscale y
    set logscale x 2
    rates = system(sprintf("%s/pbd-h5extract %s /tables/runs | awk 'NR>1 {print $3}' | sort -n | uniq | tr '\\n' ' '", bin, summary))
    plot for [r in rates] h5(summary, '/tables/runs') using 2:(($1 == 0 && $3 == real(r)) ? $4 : NaN) \
             title sprintf('PBD, %s Hz', r), \
         for [r in rates] h5(summary, '/tables/runs') using 2:(($1 == 1 && $3 == real(r)) ? $4 : NaN) \
             title sprintf('XPBD, %s Hz', r) dt 2
    unset logscale

    call 'analysis/plots/output.gp' fmt 'spring_oscillator_error'
    set title 'RMS distance to the analytic solution over the run'
    set xlabel 'time step dt (s)'
    set ylabel 'RMS |x - x_{analytic}| (m)'
    set logscale xy
    plot for [n in its] h5(summary, '/tables/runs') using (1/$3):(($1 == 1 && $2 == real(n)) ? $6 : NaN) \
             title 'XPBD, '.n.' it.', \
         for [n in its] h5(summary, '/tables/runs') using (1/$3):(($1 == 0 && $2 == real(n)) ? $6 : NaN) \
             title 'PBD, '.n.' it.' dt 2
    unset logscale
}
