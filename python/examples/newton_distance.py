#!/usr/bin/env python3
"""Distance to the Newton step against iterations: the runs of a sweep over --iterations
made with --reference=newton (python/README.md), each run's RMS distance of XPBD's step to
the implicit (Newton) step from the same state, averaged over its steps, in m.

    cat > study.sweep <<END
    scene = cloth
    resolution = 8
    steps = 10
    method = xpbd
    compliance = 1e-6
    reference = newton
    iterations = 1, 4, 16, 64
    END
    build/pbd-run --sweep=study.sweep --out=study
    python3 python/examples/newton_distance.py study/cloth newton_distance.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

import pbdlab  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: newton_distance.py SWEEP_DIR FIGURE.png")
    results = pbdlab.open_results(argv[1])
    points = []
    for run in results:
        it = run.param("solver.iterations").values
        d = run.series("newton_rms_distance")
        assert d.unit == "m", d.unit
        mean = float(np.mean(d.values))
        points.append((it, mean, d.values[-1]))
        print("ITERATIONS %d: %s: mean newton_rms_distance %r %s, last %r %s" % (
            it, run.name, mean, d.unit, d.values[-1], d.unit))
    points.sort()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.loglog([p[0] for p in points], [p[1] for p in points], "o-")
    ax.set_xlabel("iterations per step")
    ax.set_ylabel("RMS distance to the Newton step, mean over steps (m)")
    ax.set_title("%s: XPBD against the implicit step" % os.path.basename(argv[1].rstrip("/")))
    ax.grid(True, which="both")
    fig.savefig(argv[2], dpi=100, bbox_inches="tight")
    print("FIGURE %s: %d points" % (argv[2], len(points)))


if __name__ == "__main__":
    main(sys.argv)
