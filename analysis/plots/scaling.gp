# scaling: ms/step and ns per projection vs particle count, per scheme and thread count.
load 'analysis/plots/common.gp'
name(s, t) = (s == 0 ? 'Gauss-Seidel' : s == 1 ? 'Jacobi' : 'coloured GS').sprintf(', %d thread%s', t, t == 1 ? '' : 's')
threads = system(sprintf("%s/pbd-h5extract %s /tables/timing | awk 'NR>1 && $1==2 {print $2}' | sort -n | uniq | tr '\\n' ' '", bin, summary))

do for [fmt in 'png svg'] {
    set logscale x
    set xlabel 'particles (cloth, ~3 distance constraints each)'
    call 'analysis/plots/output.gp' fmt 'scaling_time'
    set title 'Wall time per step (median; PBD, fixed iterations)'
    set ylabel 'time per step (ms)'
    set logscale y
    plot for [s = 0:1] h5(summary, '/tables/timing') using 3:($1 == s ? $4 : NaN) title name(s, 1), \
         for [t in threads] h5(summary, '/tables/timing') using 3:(($1 == 2 && $2 == real(t)) ? $4 : NaN) title name(2, int(t))
    unset logscale y

    call 'analysis/plots/output.gp' fmt 'scaling_projection'
    set title 'Cost per constraint projection (projection stage / (iterations x constraints))'
    set ylabel 'ns per projection'
    plot for [s = 0:1] h5(summary, '/tables/timing') using 3:($1 == s ? $5 : NaN) title name(s, 1), \
         for [t in threads] h5(summary, '/tables/timing') using 3:(($1 == 2 && $2 == real(t)) ? $5 : NaN) title name(2, int(t))
    unset logscale
}
