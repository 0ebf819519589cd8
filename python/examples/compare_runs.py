#!/usr/bin/env python3
"""Compare two runs: each one's last max |C| per constraint set, energy and momentum, with
their units, and one figure of max |C| against time for both (python/README.md).

    build/pbd-run cloth --iterations=5 --out=cmp --run=it5 --frames=10
    build/pbd-run cloth --iterations=50 --out=cmp --run=it50 --frames=10
    python3 python/examples/compare_runs.py cmp/cloth/it5.h5 cmp/cloth/it50.h5 cmp.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

import pbdlab  # noqa: E402


def describe(run):
    t = run.series("time")
    steps, dt = run.param("steps").values, run.param("solver.dt")
    # the file agrees with itself: one row per step, time = steps dt up to the rounding of
    # adding dt once per step (at most steps x 2^-52 x t)
    assert len(t.values) == steps, (run.path, len(t.values), steps)
    assert t.unit == "s" and dt.unit == "s"
    assert abs(t.values[-1] - steps * dt.values) <= steps * np.finfo(float).eps * t.values[-1]
    print("RUN %s: %d steps, dt %r %s, t_end %r %s" % (run.name, steps, dt.values, dt.unit,
                                                      t.values[-1], t.unit))
    for s in run.sets:
        c = run.series("sets/%s/max_c" % s["name"])
        assert c.unit == s["unit"], (c.unit, s["unit"])  # the set's unit, as /scene says
        print("RUN %s: set %s (%s): max_c_end %r %s" % (run.name, s["name"], s["type"],
                                                        c.values[-1], c.unit))
    if run.n_frames:  # the last frame: its time and the last particle's position
        k = run.n_frames - 1
        x = run.frame(k)["positions"]
        print("RUN %s: frame %d at %r %s: last particle at %r %r %r %s" % (
            run.name, k, run.frame_times().values[k], run.frame_times().unit, *x.values[-1],
            x.unit))
    e, p = run.series("total_energy"), run.series("linear_momentum")
    print("RUN %s: total_energy_end %r %s, linear_momentum_end %r %s" % (
        run.name, e.values[-1], e.unit, np.linalg.norm(p.values[-1]), p.unit))


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: compare_runs.py RUN_A.h5 RUN_B.h5 FIGURE.png")
    runs = [pbdlab.open_run(argv[1]), pbdlab.open_run(argv[2])]
    for run in runs:
        describe(run)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    first_set = runs[0].sets[0]["name"]
    pbdlab.plot_series(runs, "sets/%s/max_c" % first_set, ax=top)
    pbdlab.plot_series(runs, "linear_momentum", ax=bottom)
    fig.savefig(argv[3], dpi=100, bbox_inches="tight")
    for run, line in zip(runs, bottom.get_lines()):  # what was drawn: |P| at the end
        print("PLOTTED %s: %s last %r" % (run.name, bottom.get_ylabel(), line.get_ydata()[-1]))
    print("FIGURE %s: %s; %s" % (argv[3], top.get_ylabel(), bottom.get_ylabel()))

if __name__ == "__main__":
    main(sys.argv)
