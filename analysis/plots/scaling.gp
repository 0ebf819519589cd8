# scaling: ms/step and ns per projection vs particle count, per scheme and thread count.
load 'analysis/plots/common.gp'
name(s, t) = (s == 0 ? 'Gauss-Seidel' : s == 1 ? 'Jacobi' : 'coloured GS').sprintf(', %d thread%s', t, t == 1 ? '' : 's')
schemes = values('/tables/timing', 1)
threads = system(sprintf("%s/pbd-h5extract %s /tables/timing | awk 'NR>1 && $1==2 {print $2}' | sort -n | uniq | tr '\\n' ' '", bin, summary))
# Gauss-Seidel (0) and Jacobi (1) as merged; the coloured scheme (2) per thread count
serial = (has(schemes, '0') ? '0 ' : '').(has(schemes, '1') ? '1' : '')

do for [fmt in 'png svg'] {
    set logscale x
    set xlabel 'particles (cloth, about 3 distance constraints each)'
    call 'analysis/plots/output.gp' fmt 'scaling_time'
    set title 'Wall time per step (median; PBD, fixed iterations)'
    set ylabel 'time per step (ms)'
    set logscale y
    plot for [s in serial] h5(summary, '/tables/timing') using 3:($1 == num(s) ? $4 : NaN) title name(num(s), 1), \
         for [t in threads] h5(summary, '/tables/timing') using 3:(($1 == 2 && $2 == num(t)) ? $4 : NaN) title name(2, num(t))
    unset logscale y

    call 'analysis/plots/output.gp' fmt 'scaling_projection'
    set title 'Cost per constraint projection (projection stage / (iterations x constraints))'
    set ylabel 'ns per projection'
    plot for [s in serial] h5(summary, '/tables/timing') using 3:($1 == num(s) ? $5 : NaN) title name(num(s), 1), \
         for [t in threads] h5(summary, '/tables/timing') using 3:(($1 == 2 && $2 == num(t)) ? $5 : NaN) title name(2, num(t))
    unset logscale
}
