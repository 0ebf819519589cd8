/* /scene (written once) and /frames (every K steps): positions, optional velocities and λ
 * per set, one group per frame, and the topology the frame had — /scene's, or a version
 * under /frames/topology written when particles, masses, triangles or constraint rows
 * changed (tearing grows the world). Schema: experiments/README.md "HDF5 results". */
#include "log_private.h"

#include "solver/tearing/pbd_tearing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dataset written at once (pbd_h5_write_array: chunked, checksummed, compressed when it
 * holds more than a few values), with its units. */
static int write_array(hid_t g, const char *name, hid_t type, int rank, const hsize_t *dims,
                       const void *data, const char *units, const char *description)
{
    if (pbd_h5_write_array(g, name, type, rank, dims, data) != 0) return -1;
    if (units || description) {
        hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
        if (d < 0) return -1;
        log_set_units(d, units, description);
        H5Dclose(d);
    }
    return 0;
}

hid_t log_create_frame_column(hid_t g, const char *name, hid_t type, const char *units,
                              const char *description)
{
    hsize_t chunk[1] = {64};
    hid_t d = log_create_extendible(g, name, type, 1, NULL, chunk, 0);
    if (d >= 0) log_set_units(d, units, description);
    return d;
}

herr_t log_append_value(hid_t d, hsize_t at, hid_t mem_type, const void *v)
{
    hsize_t dims[1] = {at + 1};
    if (H5Dset_extent(d, dims) < 0) return -1;
    hid_t fs = H5Dget_space(d);
    hsize_t start[1] = {at}, count[1] = {1};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(1, count, NULL);
    herr_t st = H5Dwrite(d, mem_type, ms, fs, H5P_DEFAULT, v);
    H5Sclose(ms);
    H5Sclose(fs);
    return st;
}

/* Rows whose particles are all pinned (w = 0): never moved by a projection. A rod's row
 * counts as pinned when its particles and orientations (inverse inertias) all are. */
static long pinned_rows(const pbd_world *w, const pbd_constraint_set *set)
{
    long n = 0;
    const int np = set->arity - set->type->n_orient;
    for (int c = 0; c < set->count; c++) {
        int free_particle = 0;
        for (int j = 0; j < set->arity; j++) {
            int32_t i = set->idx[(size_t)c * set->arity + j];
            const double *ii = j < np ? NULL : w->inv_inertia + 3 * (size_t)i;
            free_particle |= j < np ? w->w[i] > 0.0 : (ii[0] > 0.0 || ii[1] > 0.0 || ii[2] > 0.0);
        }
        n += !free_particle;
    }
    return n;
}

/* One set's rows: indices, rest, stiffness, compliance (and aux) into group sg. */
static int write_set_rows(hid_t sg, const pbd_world *w, const pbd_constraint_set *set)
{
    long count = set->count, pinned = pinned_rows(w, set);
    const char *unit = set->type->unit ? set->type->unit : "?";
    H5LTset_attribute_string(sg, ".", "type", set->type->name);
    H5LTset_attribute_string(sg, ".", "unit", unit);
    H5LTset_attribute_int(sg, ".", "arity", &set->arity, 1);
    H5LTset_attribute_long(sg, ".", "count", &count, 1);
    H5LTset_attribute_int(sg, ".", "n_rest", &set->type->n_rest, 1);
    H5LTset_attribute_long(sg, ".", "pinned", &pinned, 1);
    if (count == 0) return 0;
    int bad = 0;
    hsize_t di[2] = {(hsize_t)count, (hsize_t)set->arity}, dc[1] = {(hsize_t)count};
    bad |= write_array(sg, "indices", H5T_NATIVE_INT32, 2, di, set->idx, "1",
                       "particle indices, arity per row") < 0;
    if (set->type->n_rest > 0) {
        hsize_t dr[2] = {(hsize_t)count, (hsize_t)set->type->n_rest};
        bad |= write_array(sg, "rest", H5T_NATIVE_DOUBLE, 2, dr, set->rest,
                           "mixed: the type's rest layout (constraints/pbd_constraint.h)",
                           "rest values (see the type)") < 0;
    }
    bad |= write_array(sg, "stiffness", H5T_NATIVE_DOUBLE, 1, dc, set->stiffness, "1",
                       "PBD stiffness k") < 0;
    char alpha_units[64]; /* U = C²/(2α) (XPBD Eq. 3): α in unit²/J */
    if (strcmp(unit, "1") == 0) snprintf(alpha_units, sizeof alpha_units, "1/J");
    else snprintf(alpha_units, sizeof alpha_units, "(%s)^2/J", unit);
    bad |= write_array(sg, "compliance", H5T_NATIVE_DOUBLE, 1, dc, set->compliance, alpha_units,
                       "XPBD compliance alpha, in unit^2/J of the set's C") < 0;
    if (set->n_aux > 0) {
        hsize_t dx[1] = {(hsize_t)set->n_aux};
        bad |= write_array(sg, "aux", H5T_NATIVE_INT32, 1, dx, set->aux, "1",
                           "per-set topology in local indices") < 0;
    }
    return bad ? -1 : 0;
}

/* ---- topology versions ---------------------------------------------------------------- */

static void topo_free(log_topology *t, int n_sets)
{
    free(t->w);
    free(t->tri);
    for (int s = 0; s < n_sets; s++) {
        if (t->idx) free(t->idx[s]);
        if (t->rest) free(t->rest[s]);
        if (t->k) free(t->k[s]);
        if (t->alpha) free(t->alpha[s]);
    }
    free(t->count);
    free(t->idx);
    free(t->rest);
    free(t->k);
    free(t->alpha);
    memset(t, 0, sizeof *t);
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

static size_t rest_width(const pbd_constraint_set *set)
{
    return set->type->n_rest > 0 ? (size_t)set->type->n_rest : 0;
}

/* The triangles the world has now: the tearing's (it rewires them), else the last written. */
static const int32_t *current_triangles(const pbd_h5log *log, const pbd_world *w, int *n)
{
    const pbd_tearing *t = pbd_world_tearing(w);
    if (t) {
        pbd_tear_mesh m = pbd_tearing_mesh(t);
        *n = m.n_triangles;
        return m.tri;
    }
    *n = log->topo.n_tris;
    return log->topo.tri;
}

static int topo_capture(pbd_h5log *log, const pbd_world *w, const int32_t *tri, int n_tris,
                        int version, const char *group)
{
    log_topology t = {0};
    t.version = version;
    t.n = w->n;
    t.n_tris = n_tris;
    t.w = dup_bytes(w->w, (size_t)w->n * sizeof(double));
    t.tri = dup_bytes(tri, 3 * (size_t)n_tris * sizeof(int32_t));
    int ns = w->n_sets > 0 ? w->n_sets : 1;
    t.count = calloc((size_t)ns, sizeof *t.count);
    t.idx = calloc((size_t)ns, sizeof *t.idx);
    t.rest = calloc((size_t)ns, sizeof *t.rest);
    t.k = calloc((size_t)ns, sizeof *t.k);
    t.alpha = calloc((size_t)ns, sizeof *t.alpha);
    int bad = !t.w || !t.tri || !t.count || !t.idx || !t.rest || !t.k || !t.alpha;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        size_t c = (size_t)set->count;
        t.count[s] = set->count;
        t.idx[s] = dup_bytes(set->idx, c * set->arity * sizeof(int32_t));
        t.rest[s] = dup_bytes(set->rest, c * rest_width(set) * sizeof(double));
        t.k[s] = dup_bytes(set->stiffness, c * sizeof(double));
        t.alpha[s] = dup_bytes(set->compliance, c * sizeof(double));
        bad = !t.idx[s] || !t.rest[s] || !t.k[s] || !t.alpha[s];
        if (!*t.edges && set->arity == 2 && set->count > 0) {
            snprintf(t.edges, sizeof t.edges, "%s/sets/%s/indices", group, log->set_names[s]);
            t.n_edges = set->count;
        }
    }
    if (bad) {
        topo_free(&t, w->n_sets);
        return -1;
    }
    topo_free(&log->topo, log->n_sets);
    log->topo = t;
    return 0;
}

static int same(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

static int topo_changed(const pbd_h5log *log, const pbd_world *w, const int32_t *tri, int n_tris)
{
    const log_topology *t = &log->topo;
    if (t->n != w->n || t->n_tris != n_tris || !same(t->w, w->w, (size_t)w->n * sizeof(double)) ||
        !same(t->tri, tri, 3 * (size_t)n_tris * sizeof(int32_t)))
        return 1;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        size_t c = (size_t)set->count;
        if (t->count[s] != set->count || !same(t->idx[s], set->idx, c * set->arity * 4) ||
            !same(t->rest[s], set->rest, c * rest_width(set) * sizeof(double)) ||
            !same(t->k[s], set->stiffness, c * sizeof(double)) ||
            !same(t->alpha[s], set->compliance, c * sizeof(double)))
            return 1;
    }
    return 0;
}

/* /frames/topology/<v>: the world's particles' inverse masses and parents, its triangles and
 * every set's rows, as they are now. */
static int write_topology(pbd_h5log *log, const pbd_world *w, const int32_t *tri, int n_tris)
{
    int v = log->topo.version + 1;
    char name[64], group[96];
    snprintf(name, sizeof name, "%d", v);
    snprintf(group, sizeof group, "/frames/topology/%d", v);
    hid_t top = H5Gopen2(log->file, "/frames/topology", H5P_DEFAULT);
    if (top < 0) top = H5Gcreate2(log->file, "/frames/topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (top < 0) return -1;
    hid_t g = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(top);
    if (g < 0) return -1;
    long n = w->n;
    H5LTset_attribute_long(g, ".", "n_particles", &n, 1);
    int bad = 0;
    int32_t *parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *parent);
    const pbd_tearing *t = pbd_world_tearing(w);
    if (!parent) bad = 1;
    for (long i = 0; !bad && i < n; i++) parent[i] = t ? pbd_tearing_parent(t, (int)i) : -1;
    hsize_t d1[1] = {(hsize_t)n};
    if (!bad && n > 0) {
        bad |= write_array(g, "inverse_masses", H5T_NATIVE_DOUBLE, 1, d1, w->w, "1/kg",
                           "inverse mass per particle (0: pinned)") < 0;
        bad |= write_array(g, "parent", H5T_NATIVE_INT32, 1, d1, parent, "1",
                           "the particle each was split off from (tearing), -1 for none") < 0;
    }
    free(parent);
    if (!bad && n_tris > 0) {
        hsize_t dt[2] = {(hsize_t)n_tris, 3};
        bad |= write_array(g, "triangles", H5T_NATIVE_INT32, 2, dt, tri, "1",
                           "surface triangles, particle indices") < 0;
    }
    hid_t sets = bad ? -1 : H5Gcreate2(g, "sets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int s = 0; s < w->n_sets && sets >= 0 && !bad; s++) {
        hid_t sg = H5Gcreate2(sets, log->set_names[s], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad |= sg < 0 || write_set_rows(sg, w, &w->sets[s]) < 0;
        if (sg >= 0) H5Gclose(sg);
    }
    if (sets >= 0) H5Gclose(sets);
    H5Gclose(g);
    if (bad || sets < 0) return -1;
    return topo_capture(log, w, tri, n_tris, v, group);
}

/* ---- /scene ---------------------------------------------------------------------------- */

int log_write_scene(pbd_h5log *log, const pbd_world *w, const pbd_h5log_options *opt)
{
    log->n_sets = w->n_sets;
    log->set_names = calloc((size_t)(w->n_sets > 0 ? w->n_sets : 1), sizeof *log->set_names);
    if (!log->set_names) return -1;
    for (int s = 0; s < w->n_sets; s++)
        snprintf(log->set_names[s], sizeof log->set_names[s], "%02d_%s", s, w->sets[s].type->name);
    hid_t g = H5Gcreate2(log->file, "scene", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t d2[2] = {(hsize_t)w->n, 3}, d1[1] = {(hsize_t)w->n};
    int bad = 0, arrays = !(opt && opt->scene_counts_only);
    H5LTset_attribute_int(g, ".", "arrays", &arrays, 1);
    if (w->n > 0 && arrays) {
        bad |= write_array(g, "positions", H5T_NATIVE_DOUBLE, 2, d2, w->x, "m",
                           "initial positions") < 0;
        bad |= write_array(g, "velocities", H5T_NATIVE_DOUBLE, 2, d2, w->v, "m/s",
                           "initial velocities") < 0;
        bad |= write_array(g, "inverse_masses", H5T_NATIVE_DOUBLE, 1, d1, w->w, "1/kg",
                           "inverse mass per particle (0: pinned)") < 0;
    }
    if (w->n_orient > 0 && arrays) { /* rods (solver/README.md "Orientations") */
        hsize_t dq[2] = {(hsize_t)w->n_orient, 4}, d3[2] = {(hsize_t)w->n_orient, 3};
        bad |= write_array(g, "orientations", H5T_NATIVE_DOUBLE, 2, dq, w->q, "1",
                           "unit quaternions (w, x, y, z) of the rod segments") < 0;
        bad |= write_array(g, "angular_velocities", H5T_NATIVE_DOUBLE, 2, d3, w->omega,
                           "rad/s", "world-frame angular velocities of the orientations") < 0;
        bad |= write_array(g, "inverse_inertias", H5T_NATIVE_DOUBLE, 2, d3, w->inv_inertia,
                           "1/(kg m^2)", "principal inverse inertias in the body frame "
                           "(0 0 0: fixed)") < 0;
    }
    if (w->n_attach > 0) {
        hsize_t da[1] = {(hsize_t)w->n_attach};
        bad |= write_array(g, "attachments", H5T_NATIVE_INT, 1, da, w->attach_idx, "1",
                           "attached (pinned) particle indices") < 0;
    }
    const int32_t *tri = opt ? opt->triangles : NULL;
    int n_tris = opt && opt->triangles ? opt->n_triangles : 0;
    const pbd_tearing *tearing = pbd_world_tearing(w);
    if (!tri && tearing) {
        pbd_tear_mesh m = pbd_tearing_mesh(tearing);
        tri = m.tri;
        n_tris = m.n_triangles;
    }
    if (tri && n_tris > 0 && arrays) {
        hsize_t dt[2] = {(hsize_t)n_tris, 3};
        bad |= write_array(g, "triangles", H5T_NATIVE_INT32, 2, dt, tri, "1",
                           "surface triangles, particle indices") < 0;
        log->n_tris = n_tris;
    }
    if (opt && opt->tets && opt->n_tets > 0 && arrays) {
        hsize_t dt[2] = {(hsize_t)opt->n_tets, 4};
        bad |= write_array(g, "tets", H5T_NATIVE_INT32, 2, dt, opt->tets, "1",
                           "tetrahedra, particle indices") < 0;
        log->n_tets = opt->n_tets;
    }
    hid_t sets = H5Gcreate2(g, "sets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    long n_constraints = 0;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        hid_t sg = H5Gcreate2(sets, log->set_names[s], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad |= sg < 0;
        if (bad) break;
        n_constraints += set->count;
        if (arrays) {
            bad |= write_set_rows(sg, w, set) < 0;
        } else {
            long count = set->count;
            H5LTset_attribute_string(sg, ".", "type", set->type->name);
            H5LTset_attribute_string(sg, ".", "unit", set->type->unit ? set->type->unit : "?");
            H5LTset_attribute_int(sg, ".", "arity", &set->arity, 1);
            H5LTset_attribute_long(sg, ".", "count", &count, 1);
        }
        H5Gclose(sg);
    }
    H5Gclose(sets);
    H5Gclose(g);
    if (bad) return -1;
    long n = w->n;
    H5LTset_attribute_long(log->file, "/", "n_particles", &n, 1);
    H5LTset_attribute_long(log->file, "/", "n_constraints", &n_constraints, 1);
    if (!arrays) return 0;
    /* version 0 of the topology is /scene */
    return topo_capture(log, w, n_tris > 0 ? tri : NULL, n_tris > 0 ? n_tris : 0, 0, "/scene");
}

/* ---- /frames ---------------------------------------------------------------------------- */

hsize_t log_frame_bytes(const pbd_h5log *log, const pbd_world *w)
{
    /* positions, velocities, λ per set (uncompressed sizes), and 4 KiB of object headers
     * and index per dataset */
    hsize_t b = 8 * 3 * (hsize_t)w->n * (log->frame_velocities ? 2 : 1) + 16384;
    b += 8 * 7 * (hsize_t)w->n_orient; /* rods: quaternions and angular velocities */
    for (int s = 0; s < w->n_sets; s++) b += 8 * (hsize_t)w->sets[s].count + 4096;
    int n_tris;
    const int32_t *tri = current_triangles(log, w, &n_tris);
    if (topo_changed(log, w, tri, n_tris)) {
        /* a new topology version: inverse masses, parents, triangles, rows */
        b += 12 * (hsize_t)w->n + 12 * (hsize_t)n_tris + 16384;
        for (int s = 0; s < w->n_sets; s++) {
            const pbd_constraint_set *set = &w->sets[s];
            b += (hsize_t)set->count * (4 * (hsize_t)set->arity + 8 * (rest_width(set) + 2)) +
                 16384;
        }
    }
    return b;
}

int log_write_frame(pbd_h5log *log, const pbd_world *w)
{
    int n_tris;
    const int32_t *tri = current_triangles(log, w, &n_tris);
    if (topo_changed(log, w, tri, n_tris) && write_topology(log, w, tri, n_tris) != 0) return -1;
    char name[64];
    snprintf(name, sizeof name, "/frames/%06ld", (long)log->n_frames);
    hid_t g = H5Gcreate2(log->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t d2[2] = {(hsize_t)w->n, 3};
    int bad = write_array(g, "positions", H5T_NATIVE_DOUBLE, 2, d2, w->x, "m",
                          "positions, particle x xyz") < 0;
    if (log->frame_velocities)
        bad |= write_array(g, "velocities", H5T_NATIVE_DOUBLE, 2, d2, w->v, "m/s",
                           "velocities of the last substep, particle x xyz") < 0;
    if (w->n_orient > 0) { /* rods: the orientations (and their angular velocities) */
        hsize_t dq[2] = {(hsize_t)w->n_orient, 4}, d3[2] = {(hsize_t)w->n_orient, 3};
        bad |= write_array(g, "orientations", H5T_NATIVE_DOUBLE, 2, dq, w->q, "1",
                           "unit quaternions (w, x, y, z), orientation x wxyz") < 0;
        if (log->frame_velocities)
            bad |= write_array(g, "angular_velocities", H5T_NATIVE_DOUBLE, 2, d3, w->omega,
                               "rad/s", "world-frame angular velocities of the last "
                               "substep, orientation x xyz") < 0;
    }
    hid_t lg = bad ? -1 : H5Gcreate2(g, "lambda", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int s = 0; s < w->n_sets && lg >= 0 && !bad; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (set->count == 0) continue;
        hsize_t dc[1] = {(hsize_t)set->count};
        char units[64];
        snprintf(units, sizeof units, "J/(%s)", set->type->unit ? set->type->unit : "?");
        bad |= write_array(lg, log->set_names[s], H5T_NATIVE_DOUBLE, 1, dc, set->lambda, units,
                           "XPBD multiplier per constraint of the last substep (Eq. 18); "
                           "the constraint force is lambda grad C / h^2") < 0;
    }
    if (lg >= 0) H5Gclose(lg);
    H5Gclose(g);
    if (bad || lg < 0) return -1;
    double t = w->time;
    long step = w->step_count;
    int n = w->n, v = log->topo.version;
    hsize_t k = log->n_frames;
    if (log_append_value(log->fr_time, k, H5T_NATIVE_DOUBLE, &t) < 0 ||
        log_append_value(log->fr_step, k, H5T_NATIVE_LONG, &step) < 0 ||
        log_append_value(log->fr_n, k, H5T_NATIVE_INT, &n) < 0 ||
        log_append_value(log->fr_topo, k, H5T_NATIVE_INT, &v) < 0)
        return -1;
    if (log->n_frames >= log->frame_cap) {
        size_t cap = log->frame_cap ? 2 * log->frame_cap : 64;
        log_frame *f = realloc(log->frames, cap * sizeof *f);
        if (!f) return -1;
        log->frames = f;
        log->frame_cap = cap;
    }
    log->frames[log->n_frames++] =
        (log_frame){t, n, v, log->topo.n_tris, log->topo.n_edges, w->n_orient};
    return 0;
}

int log_make_frames(pbd_h5log *log, const pbd_world *w)
{
    if (log->frames_every <= 0 || w->n == 0) return 0;
    if (!log->topo.w) { /* /scene without arrays: the frames hold the topology */
        log->frames_every = 0;
        return 0;
    }
    hid_t g = H5Gcreate2(log->file, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int every = log->frames_every;
    H5LTset_attribute_int(g, ".", "every", &every, 1);
    H5LTset_attribute_string(g, ".", "layout",
                             "frame k in group %06d (k): positions, velocities (optional), "
                             "orientations and angular_velocities (rods; optional), "
                             "lambda/<NN_type>; its topology (particles, inverse masses, "
                             "triangles, constraint rows) is /scene when topology_version[k] = 0, "
                             "else /frames/topology/<topology_version[k]>");
    log->fr_time = log_create_frame_column(g, "time", H5T_NATIVE_DOUBLE, "s", "time of each frame");
    log->fr_step = log_create_frame_column(g, "step", H5T_NATIVE_LONG, "1",
                                           "the step after which it was taken (0: initial)");
    log->fr_n = log_create_frame_column(g, "n_particles", H5T_NATIVE_INT, "1",
                                        "particles in each frame");
    log->fr_topo = log_create_frame_column(g, "topology_version", H5T_NATIVE_INT, "1",
                                           "topology version of each frame: 0 = /scene, v > 0 "
                                           "= /frames/topology/<v>");
    H5Gclose(g);
    if (log->fr_time < 0 || log->fr_step < 0 || log->fr_n < 0 || log->fr_topo < 0) return -1;
    return log_write_frame(log, w); /* frame 0: the initial state */
}

void log_free_frames(pbd_h5log *log)
{
    topo_free(&log->topo, log->n_sets);
    free(log->frames);
    free(log->set_names);
    free(log->c_set);
    log->frames = NULL;
    log->set_names = NULL;
    log->c_set = NULL;
}

void log_trim_frames(pbd_h5log *log)
{
    if (log->fr_time < 0 || log->file < 0) return; /* no /frames */
    hsize_t keep = log->frames_flushed;
    hid_t cols[] = {log->fr_time, log->fr_step, log->fr_n, log->fr_topo};
    for (unsigned i = 0; i < sizeof cols / sizeof cols[0]; i++) /* also a half-appended row */
        if (cols[i] >= 0) H5Dset_extent(cols[i], &keep);
    char name[96];
    for (hsize_t k = keep; k <= log->n_frames; k++) { /* n_frames: a half-written frame */
        snprintf(name, sizeof name, "/frames/%06ld", (long)k);
        if (H5Lexists(log->file, name, H5P_DEFAULT) > 0) H5Ldelete(log->file, name, H5P_DEFAULT);
    }
    /* the versions only the dropped frames used (and one half written) */
    int kept_version = keep > 0 && keep <= log->n_frames ? log->frames[keep - 1].version : 0;
    for (int v = kept_version + 1; v <= log->topo.version + 1; v++) {
        snprintf(name, sizeof name, "/frames/topology/%d", v);
        if (H5Lexists(log->file, "/frames/topology", H5P_DEFAULT) > 0 &&
            H5Lexists(log->file, name, H5P_DEFAULT) > 0)
            H5Ldelete(log->file, name, H5P_DEFAULT);
    }
    if (keep < log->n_frames) log->n_frames = keep;
}
