"""Read pbdlab's result files from Python: a run file, an experiment's or a sweep's
directory; series, frames and parameters with their units; plots with matplotlib.

The files' layout is experiments/README.md "HDF5 results". Every dataset carries a
``units`` attribute, which this module returns beside the numbers; the parameters (root
attributes ``solver.*``, ``scene.*``) carry none in the file, and get theirs from
PARAMETER_UNITS (the units ``pbd-run --help`` states; suite ``python`` checks the two agree).

    import pbdlab
    run = pbdlab.open_run("data/results/cloth/run.h5")
    t = run.series("time")                      # Quantity: t.values (numpy), t.unit "s"
    c = run.series("sets/00_distance/max_c")    # in the set's unit, "m"
    dt = run.param("solver.dt")                 # Quantity(0.01666..., "s")
    x = run.frame(3)["positions"]               # Quantity, n x 3, "m"
    sweep = pbdlab.open_results("study/cloth")  # a sweep's or an experiment's directory
    for name in sweep.runs: ...
    pbdlab.plot_series([run], "total_energy", path="energy.png")

Needs h5py and numpy (Debian: python3-h5py, python3-numpy), and matplotlib
(python3-matplotlib) for the plots only.
"""

import os

import h5py
import numpy as np

__all__ = ["Quantity", "Run", "Results", "open_run", "open_results", "list_runs",
           "plot_series", "PARAMETER_UNITS"]

# The units of the parameters pbd-run's --help states for its options (root attributes
# solver.<option> and scene.<option>); the others are counts, switches, words or, like the
# compliances, in a unit that depends on the constraint type.
PARAMETER_UNITS = {
    "solver.dt": "s",
    "solver.gravity": "m/s^2",
    "solver.vbd-damping": "s",
    "scene.size": "m",
    "scene.mass": "kg",
    "scene.fluid-density": "kg/m^3",
    "scene.fluid-epsilon": "1/m^2",
    "scene.fluid-vorticity": "m/s",
    "scene.rod-radius": "m",
    "scene.contact-margin": "m",
    "scene.sphere-radius": "m",
    "scene.thickness": "m",
    "scene.launch-speed": "m/s",
    "scene.drop-height": "m",
    "scene.ramp-angle": "degrees",
    "scene.body-mass": "kg",
    "scene.body-size": "m",
    "scene.body-speed": "m/s",
}


class Quantity:
    """Numbers with their unit (a string as the file writes it: "m", "kg m/s", "1")."""

    def __init__(self, values, unit, name="", description=""):
        self.values = values
        self.unit = unit
        self.name = name
        self.description = description

    def __repr__(self):
        return "Quantity(%s, %r, %r)" % (self.name, self.values, self.unit)

    def label(self):
        """An axis label: name (unit)."""
        return "%s (%s)" % (self.name, self.unit) if self.unit else self.name


def _text(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray) and v.dtype.kind in "SO" and v.size == 1:
        return _text(v.reshape(-1)[0])
    return v


def _value(v):
    """An attribute as Python: a string, a number, or a numpy array of several."""
    v = _text(v)
    if isinstance(v, np.ndarray):
        return v.reshape(-1)[0].item() if v.size == 1 else v
    if isinstance(v, np.generic):
        return v.item()
    return v


class Run:
    """One run file (``<run>.h5``): its parameters, series, frames and constraint sets."""

    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            self.params = {k: _value(v) for k, v in f.attrs.items()}
            self._series = []
            if "series" in f:
                f["series"].visititems(lambda n, o: self._series.append(n)
                                       if isinstance(o, h5py.Dataset) else None)
            self.n_frames = len(f["frames/time"]) if "frames/time" in f else 0
            self.sets = []
            if "scene/sets" in f:
                for name, g in sorted(f["scene/sets"].items()):
                    self.sets.append({"name": name, "type": _value(g.attrs["type"]),
                                      "unit": _value(g.attrs["unit"]),
                                      "count": int(_value(g.attrs["count"]))})
        self.name = os.path.splitext(os.path.basename(path))[0]

    def __repr__(self):
        return "Run(%r)" % self.path

    @property
    def complete(self):
        return self.params.get("complete") == 1

    def param(self, name):
        """A root attribute (solver.dt, scene.size, steps, ...) with its unit (None when the
        file and pbd-run's --help state none)."""
        return Quantity(self.params[name], PARAMETER_UNITS.get(name), name)

    def series_names(self):
        """The /series columns, relative to /series (e.g. "time", "sets/00_distance/max_c")."""
        return list(self._series)

    def series(self, name):
        """One /series column (one row per step) with its unit; NaN where not measured."""
        with h5py.File(self.path, "r") as f:
            d = f["series/" + name]
            return Quantity(d[...], _value(d.attrs.get("units", "")), name,
                            _value(d.attrs.get("description", "")))

    def frame_times(self):
        """The time of every frame (frame 0: the initial state)."""
        with h5py.File(self.path, "r") as f:
            d = f["frames/time"]
            return Quantity(d[...], _value(d.attrs["units"]), "frame time")

    def frame(self, k):
        """Frame k: a dict of Quantity (positions, and velocities, orientations, lambda/<set>
        when the run wrote them)."""
        if not 0 <= k < self.n_frames:
            raise IndexError("%s: frame %d: expected 0..%d" % (self.path, k, self.n_frames - 1))
        out = {}
        with h5py.File(self.path, "r") as f:
            def take(name, obj):
                if isinstance(obj, h5py.Dataset):
                    out[name] = Quantity(obj[...], _value(obj.attrs.get("units", "")), name)
            f["frames/%06d" % k].visititems(take)
        return out

    def scene(self, name):
        """A /scene dataset (positions, inverse_masses, attachments, triangles, ...)."""
        with h5py.File(self.path, "r") as f:
            d = f["scene/" + name]
            return Quantity(d[...], _value(d.attrs.get("units", "")), name)

    def plot(self, names, path=None, ax=None):
        """Plot series against time: see plot_series."""
        return plot_series([self], names, path=path, ax=ax)


class Table:
    """A summary table (/tables/<name>): rows x columns, with each column's unit."""

    def __init__(self, name, data, columns, units):
        self.name = name
        self.data = data
        self.columns = columns
        self.units = units

    def column(self, name):
        i = self.columns.index(name)
        return Quantity(self.data[:, i], self.units[i] if i < len(self.units) else "", name)


class Results:
    """A directory of runs: an experiment's (data/results/<experiment>/), a sweep's
    (DIR/<scene>/ of pbd-run --sweep) or any directory of run files. The runs are
    summary.h5's runs_merged when the directory was merged, else its complete run files."""

    def __init__(self, path):
        self.path = path
        self.summary = None
        self.tables = {}
        summary = os.path.join(path, "summary.h5")
        if os.path.isfile(summary):
            with h5py.File(summary, "r") as f:
                self.summary = {k: _value(v) for k, v in f.attrs.items()}
                for name, d in f.get("tables", {}).items():
                    self.tables[name] = Table(name, d[...], _value(d.attrs["columns"]).split(),
                                              _value(d.attrs["units"]).split())
            self.runs = self.summary.get("runs_merged", "").split()
        else:
            self.runs = list_runs(path)

    def __repr__(self):
        return "Results(%r, %d runs)" % (self.path, len(self.runs))

    @property
    def headline(self):
        return self.summary.get("headline") if self.summary else None

    def run(self, name):
        return Run(os.path.join(self.path, name + ".h5"))

    def __iter__(self):
        return (self.run(name) for name in self.runs)


def open_run(path):
    """A run file."""
    return Run(path)


def open_results(path):
    """An experiment's or a sweep's directory (or any directory of run files)."""
    return Results(path)


def list_runs(path):
    """The complete run files in a directory, by name (no summary.h5, no partial files)."""
    names = []
    for entry in sorted(os.listdir(path)):
        if not entry.endswith(".h5") or entry == "summary.h5" or ".partial" in entry:
            continue
        with h5py.File(os.path.join(path, entry), "r") as f:
            if _value(f.attrs.get("complete", 0)) == 1:
                names.append(entry[:-3])
    return names


def plot_series(runs, names, path=None, ax=None):
    """Each run's /series column(s) `names` (a name or a list) against time, one curve per
    run and column, labelled with the unit. Saved to `path` when given; returns the axes."""
    import matplotlib
    if path is not None and ax is None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [names] if isinstance(names, str) else list(names)
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 5))
    units = set()
    for run in runs:
        t = run.series("time")
        for name in names:
            q = run.series(name)
            v = q.values if q.values.ndim == 1 else np.linalg.norm(q.values, axis=1)
            units.add(q.unit)
            ax.plot(t.values, v, label="%s: %s" % (run.name, name) if len(names) > 1 else run.name)
        ax.set_xlabel(t.label().replace("time", "time t"))
    ylabel = ", ".join(names) if len(names) > 1 else names[0]
    if any(run.series(n).values.ndim > 1 for run in runs[:1] for n in names):
        ylabel = "|%s|" % ylabel
    ax.set_ylabel("%s (%s)" % (ylabel, ", ".join(sorted(units))))
    ax.legend()
    ax.grid(True)
    if path is not None:
        (fig or ax.figure).savefig(path, dpi=100, bbox_inches="tight")
    return ax
