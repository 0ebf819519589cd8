"""Open every XDMF sidecar given with ParaView's OpenDataFile (the reader ParaView picks
itself: Xdmf3ReaderS in 5.11) and compare each frame with the run file's /frames: the number
of points (/frames/n_particles), of cells (the frame's triangles, /scene/tets, or the first
distance set's edges; none for a point cloud), the bounds of /frames/<k>/positions and, with one
orientation per point (rigid bodies), the ranges of the point array "orientation". Run by pvpython
(scripts/check-paraview.sh). Reads HDF5 with h5py, or with pbd-h5extract ($PBD_H5EXTRACT)
when h5py is missing. Exits 1 on any difference."""
import os
import subprocess
import sys

from paraview.simple import OpenDataFile

try:
    import h5py
except ImportError:  # pbd-h5extract instead
    h5py = None


class Run:
    """The datasets of one run file that the sidecar shows."""

    def __init__(self, path):
        self.path = path
        self.f = h5py.File(path, "r") if h5py else None

    def rows(self, name):
        if self.f is not None:
            if name not in self.f:
                return None
            d = self.f[name][()]
            return [list(r) if hasattr(r, "__len__") else [r] for r in d]
        tool = os.environ.get("PBD_H5EXTRACT", "build/pbd-h5extract")
        p = subprocess.run([tool, self.path, name], capture_output=True, text=True)
        if p.returncode != 0:
            return None
        return [[float(v) for v in line.split()] for line in p.stdout.splitlines()
                if line and not line.startswith("#")]

    def count(self, name):
        r = self.rows(name)
        return None if r is None else len(r)


def expected_cells(run, version):
    group = "/scene" if version == 0 else "/frames/topology/%d" % version
    for name in ("/scene/tets", group + "/triangles"):
        n = run.count(name)
        if n:
            return n
    sets = sorted(run.f[group + "/sets"].keys()) if run.f is not None else []
    if run.f is None:  # without h5py: the chain-like scenes' first set
        sets = ["00_distance"]
    for s in sets:
        n = run.count("%s/sets/%s/indices" % (group, s))
        if n and len(run.rows("%s/sets/%s/indices" % (group, s))[0]) == 2:
            return n
    # no tets, triangles or edges: the sidecar's Polyvertex topology without connectivity
    # (experiments/log/xdmf.c; the fluids), which the reader gives as points and no cells
    return 0


def check(xdmf):
    h5 = xdmf[:-len(".xdmf")] + ".h5"
    run = Run(h5)
    times = [r[0] for r in run.rows("/frames/time")]
    counts = [int(r[0]) for r in run.rows("/frames/n_particles")]
    versions = [int(r[0]) for r in run.rows("/frames/topology_version")]
    reader = OpenDataFile(xdmf)
    name = reader.GetXMLName()
    steps = list(reader.TimestepValues)
    bad = []
    if len(steps) != len(times):
        bad.append("%d time steps in the reader, %d frames in the file" % (len(steps), len(times)))
    for k, t in enumerate(times):
        if k >= len(steps):
            break
        if abs(steps[k] - t) > 1e-12 * max(1.0, abs(t)):
            bad.append("frame %d: time %.17g in the reader, %.17g in /frames/time" % (k, steps[k], t))
        reader.UpdatePipeline(steps[k])
        info = reader.GetDataInformation()
        pts, cells = info.GetNumberOfPoints(), info.GetNumberOfCells()
        bounds = info.GetBounds()
        x = run.rows("/frames/%06d/positions" % k)
        want = [f(c[i] for c in x) for i in range(3) for f in (min, max)]
        cells_want = expected_cells(run, versions[k])
        scale = max(1.0, max(abs(v) for v in want))
        if pts != counts[k] or pts != len(x):
            bad.append("frame %d: %d points, /frames says %d" % (k, pts, counts[k]))
        if cells != cells_want:
            bad.append("frame %d: %d cells, expected %s" % (k, cells, cells_want))
        if any(abs(a - b) > 1e-12 * scale for a, b in zip(bounds, want)):
            bad.append("frame %d: bounds %s, /frames/%06d/positions %s" % (k, bounds, k, want))
        q = run.rows("/frames/%06d/orientations" % k)
        if q is not None and len(q) == len(x):  # one per point (rigid bodies): shown
            arr = reader.GetPointDataInformation().GetArray("orientation")
            got = [] if arr is None or arr.GetNumberOfComponents() != 4 else \
                [v for c in range(4) for v in arr.GetRange(c)]
            want_q = [f(r[i] for r in q) for i in range(4) for f in (min, max)]
            if len(got) != 8 or any(abs(a - b) > 1e-15 for a, b in zip(got, want_q)):
                bad.append("frame %d: orientation ranges %s, /frames/%06d/orientations %s"
                           % (k, got, k, want_q))
    print("%s: %s, %d frames, %d..%d points, %s" % (
        os.path.relpath(xdmf), name, len(times), min(counts), max(counts),
        "OK" if not bad else "FAIL"))
    for b in bad[:5]:
        print("    " + b)
    return not bad


def main(paths):
    if not paths:
        print("usage: pvpython check_paraview.py RUN.xdmf...", file=sys.stderr)
        return 2
    ok = [check(os.path.abspath(p)) for p in paths]
    print("check-paraview: %d sidecars, %d passed, %d failed" % (
        len(ok), sum(ok), len(ok) - sum(ok)))
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
