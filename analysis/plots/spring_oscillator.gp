# spring_oscillator: trajectories at one rate, effective stiffness vs iterations, error vs dt.
# The iteration counts, rates and methods are the ones merged in summary.h5 (any subset).
load 'analysis/plots/common.gp'
# the methods merged: XPBD (1) first, or PBD (0) first
m = values('/tables/runs', 1)
methods = (has(m, '1') ? '1 ' : '').(has(m, '0') ? '0' : '')
pbd_first = (has(m, '0') ? '0 ' : '').(has(m, '1') ? '1' : '')
its = values('/tables/runs', 2)
rates = values('/tables/runs', 3)
mname(m) = (num(m) == 1 ? 'XPBD' : 'PBD')
mfile(m) = (num(m) == 1 ? 'xpbd' : 'pbd')
# dash type: solid for the method drawn solid, `other` for the other one
mdt(m, solid, other) = (num(m) == solid ? 1 : other)
# the trajectories at 60 Hz (the paper's rate) when merged, else at the lowest rate merged
hz = has(rates, '60') ? '60' : word(rates, 1)
run(m, n) = dir.'/'.mfile(m).'_it'.n.'_hz'.hz.'.h5'
traj = ''
do for [m in methods] { do for [n in its] { if (file_exists(run(m, n))) { traj = traj.' '.m.':'.n } } }
tm(t) = t[1:strstrt(t, ':') - 1]
tn(t) = t[strstrt(t, ':') + 1:]
ref = run(tm(word(traj, 1)), tn(word(traj, 1)))

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'spring_oscillator_trajectory'
    set title sprintf('Spring oscillator at dt = 1/%s s: rest 1 m, x_0 = 1.5 m, α = 0.001 m/N, m = 1 kg', hz)
    set xlabel 'time t (s)'
    set ylabel 'particle position x (m)'
    unset logscale
    set style data lines
    plot h5(ref, '/series/time /series/x_analytic') using 1:2 title 'analytic' lw 2 lc rgb 'black', \
         h5(ref, '/series/time /series/x_backward_euler') using 1:2 title 'backward Euler' dt 2 lw 2 lc rgb 'gray40', \
         for [t in traj] h5(run(tm(t), tn(t)), '/series/time /series/x') using 1:2 \
             title mname(tm(t)).', '.tn(t).' it.' lw 1.5 dt mdt(tm(t), 1, 3)
    set style data linespoints

    call 'analysis/plots/output.gp' fmt 'spring_oscillator_stiffness'
    set title 'Effective stiffness measured from the trajectory (1/α = 1000 N/m)'
    set xlabel 'solver iterations per step'
    set ylabel 'k_{eff} = -m Δv / (Δt u) (N/m)'
    set logscale y
    set logscale x 2
    plot for [m in pbd_first] for [r in rates] h5(summary, '/tables/runs') \
             using 2:(($1 == num(m) && $3 == num(r)) ? $4 : NaN) \
             title sprintf('%s, %s Hz', mname(m), r) dt mdt(m, 0, 2)
    unset logscale

    call 'analysis/plots/output.gp' fmt 'spring_oscillator_error'
    set title 'RMS distance to the analytic solution over the run'
    set xlabel 'time step dt (s)'
    set ylabel 'RMS |x - x_{analytic}| (m)'
    set logscale xy
    plot for [m in methods] for [n in its] h5(summary, '/tables/runs') \
             using (1/$3):(($1 == num(m) && $2 == num(n)) ? $6 : NaN) \
             title mname(m).', '.n.' it.' dt mdt(m, 1, 2)
    unset logscale
}
