# tet_inversion: inverted fraction and smallest V/V0 over time, per body (one panel each) and
# constraint set. Sets that recover do so at once and then coincide: each set is drawn
# thinner than the one before, with its own markers, so every curve shows.
load 'analysis/plots/common.gp'
runs = attr(summary, 'runs_merged')
bodies = ''
do for [b in 'tet beam'] { do for [r in runs] { if (strstrt(r, b.'_') == 1 && !has(bodies, b)) { bodies = bodies.' '.b } } }
set style data linespoints
# the k-th run of a body: line width and marker interval (nested strokes, staggered marks)
width(k) = 9 - 2 * k
every(k) = 5 + 2 * k
body_runs(b) = system(sprintf("for r in %s; do case $r in %s_*) echo $r;; esac; done | tr '\\n' ' '", runs, b))
name(b) = b eq 'tet' ? 'one tet, a vertex reflected' : 'tet beam, mirrored'

do for [fmt in 'png svg'] {
    do for [what in 'fraction volume'] {
        call 'analysis/plots/output.gp' fmt 'tet_inversion_'.what
        set multiplot layout 1, (words(bodies) > 0 ? words(bodies) : 1) \
            title (what eq 'fraction' ? 'Inverted tetrahedra recovering (or not) under each constraint set' \
                                     : 'Smallest volume ratio over the tets')
        set xlabel 'time t (s)'
        set logscale x
        set key inside center right box opaque font ',9'
        if (what eq 'fraction') { set ylabel 'fraction of tets with V/V_0 < 0'; set yrange [-0.05:1.05] } \
        else { set ylabel 'min V/V_0'; set autoscale y; set offsets 0, 0, graph 0.06, graph 0.06 }
        col = what eq 'fraction' ? 'inverted_fraction' : 'min_volume_ratio'
        if (bodies eq '') { eval nodata('no tet_inversion runs') }
        do for [b in bodies] {
            set title name(b)
            rs = body_runs(b)
            plot for [k = 1:words(rs)] h5(dir.'/'.word(rs, k).'.h5', '/series/time /series/'.col) \
                     using 1:2 title word(rs, k) noenhanced lw width(k) pt k + 3 pi every(k) ps 1.2
        }
        unset multiplot
        unset logscale x
        set autoscale y
        set offsets 0, 0, 0, 0
    }
}
