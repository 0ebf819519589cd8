# xpbd_vs_implicit: XPBD's distance to the implicit step (the sparse Newton reference) and
# its force error, against the budget N spent as 1 step x N iterations or N substeps x 1.
load 'analysis/plots/common.gp'
label(m) = m eq 'substeps' ? 'N substeps x 1 iteration' : '1 step x N iterations'
name(sc) = sc eq 'cloth' ? 'cloth (XPBD Table 1, 64^2)' : 'tet beam'

do for [fmt in 'png svg'] {
    do for [sc in 'cloth tet_beam'] {
        # the budget modes with runs in this (sub)sweep
        ms = ''
        do for [m in 'iterations substeps'] {
            if (values('/tables/'.sc.'_'.m, 1) ne '') { ms = ms.' '.m }
        }
        none = sprintf('no %s runs in this sweep', name(sc))
        set logscale xy
        set xlabel 'projections per constraint and frame, N (equal cost)'
        call 'analysis/plots/output.gp' fmt 'xpbd_vs_implicit_'.sc.'_distance'
        set title sprintf('%s: distance to the implicit step (Newton), mean over the frames', name(sc))
        set ylabel '|x_{XPBD} - x_{Newton}| (m)'
        if (ms eq '') { eval nodata(none) } else {
        do for [m in ms] { eval diverged('/tables/'.sc.'_'.m, 1, 10) }
        plot for [m in ms] h5(summary, '/tables/'.sc.'_'.m) using 1:2 \
                 title label(m).', RMS', \
             for [m in ms] h5(summary, '/tables/'.sc.'_'.m) using 1:3 \
                 title label(m).', max' dashtype 2
        }

        unset label
        call 'analysis/plots/output.gp' fmt 'xpbd_vs_implicit_'.sc.'_force'
        set title sprintf('%s: constraint forces against the implicit step''s', name(sc))
        set ylabel '||f_{XPBD} - f_{Newton}|| / ||f_{Newton}||'
        if (ms eq '') { eval nodata(none) } else {
        do for [m in ms] { eval diverged('/tables/'.sc.'_'.m, 1, 10) }
        if (sc eq 'cloth') {
            plot for [m in ms] h5(summary, '/tables/'.sc.'_'.m) using 1:4 \
                     title label(m).', springs'
        } else {
            plot for [m in ms] h5(summary, '/tables/'.sc.'_'.m) using 1:4 \
                     title label(m).', edges', \
                 for [m in ms] h5(summary, '/tables/'.sc.'_'.m) using 1:5 \
                     title label(m).', volumes' dashtype 2
        } }
        unset label
        unset logscale
    }
}
