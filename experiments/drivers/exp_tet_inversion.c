/* tet_inversion — seed "tetrahedron constraint gradients": edge distance constraints are
 * satisfied by a tetrahedron and by its mirror image alike, so an inverted tet stays
 * inverted; the signed volume constraint (tet_volume, rest V0 > 0) and the four plane
 * constraints per tet (tet_plane: each vertex at its signed rest distance from the opposite
 * face) push it back through.
 *
 * Bodies: one tetrahedron with one vertex reflected through the opposite face, and a tet
 * beam mirrored as a whole (x -> -x: every tet inverted, every edge length unchanged). No
 * gravity, nothing attached. Constraint sets: distance (edges only), distance + volume,
 * plane (4 per tet, no edges), distance + plane. Measured: the fraction of tets whose signed
 * volume has the opposite sign of their rest volume, and min V/V0, over the run. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const body_words[] = {"tet", "beam", NULL};
static const char *const set_words[] = {"distance", "distance+volume", "plane", "distance+plane", NULL};
static const char *const set_names[] = {"distance", "distance_volume", "plane", "distance_plane"};

static struct {
    const char *bodies, *sets;
    int steps, iterations, beam_resolution;
    double rate;
} P;

static int options(cli_option *out, int quick)
{
    P.bodies = "tet,beam";
    P.sets = "distance,distance+volume,plane,distance+plane";
    P.steps = quick ? 60 : 300;
    P.iterations = 20;
    P.beam_resolution = 4;
    P.rate = 60.0;
    const cli_option rows[] = {
        {"bodies", CLI_STRING, &P.bodies, 0, 0, 0, "tet, beam (list)", NULL},
        {"sets", CLI_STRING, &P.sets, 0, 0, 0,
         "distance, distance+volume, plane, distance+plane (list)", NULL},
        {"steps", CLI_INT, &P.steps, 1, 1e8, 0, "steps per run", NULL},
        {"iterations", CLI_INT, &P.iterations, 1, 1e6, 0, "solver iterations per step", NULL},
        {"beam-resolution", CLI_INT, &P.beam_resolution, 1, 64, 0, "beam cubes along x", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "steps per second (1/dt)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

/* The rest mesh: one regular-ish tet, or a beam of 5-tet cubes. */
static int rest_mesh(int body, pbd_tetmesh *m)
{
    if (body == 1) {
        int nx = P.beam_resolution;
        return pbd_mesh_tet_beam(nx, 1, 1, 1.0, 1.0 / nx, 1.0 / nx, 5, m) == PBD_OK ? 0 : -1;
    }
    if (pbd_tetmesh_alloc(m, 4, 1) != PBD_OK) return -1;
    const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(m->x, x, sizeof x);
    for (int k = 0; k < 4; k++) m->tet[k] = k;
    return 0;
}

/* Invert the body: the single tet's vertex 3 reflected through the face (0, 1, 2) — the
 * plane z = 0 —, the beam mirrored x -> -x. */
static void invert(int body, pbd_world *w)
{
    if (body == 0) {
        w->x[3 * 3 + 2] = -w->x[3 * 3 + 2];
        return;
    }
    for (int i = 0; i < w->n; i++) w->x[3 * i] = -w->x[3 * i];
}

static pbd_world *build(int sets, const pbd_tetmesh *m)
{
    pbd_world *w = pbd_world_create(m->n_vertices);
    if (!w) return NULL;
    for (int i = 0; i < m->n_vertices; i++)
        pbd_world_set_particle(w, i, m->x + 3 * i, NULL, 1.0 / m->n_vertices);
    int ok = 1;
    if (sets != 2) { /* edges */
        int32_t *edges = NULL;
        int ne = pbd_tetmesh_edges(m, &edges), s = ne >= 0 ? pbd_world_add_set(w, &pbd_distance_type, 0) : -1;
        for (int e = 0; s >= 0 && e < ne; e++)
            if (pbd_set_add(w, s, edges + 2 * e, NULL, 1.0, 0.0) < 0) s = -1;
        free(edges);
        ok &= s >= 0;
    }
    if (ok && sets == 1) {
        int s = pbd_world_add_set(w, &pbd_tet_volume_type, 0);
        for (int t = 0; s >= 0 && t < m->n_tets; t++)
            if (pbd_set_add(w, s, m->tet + 4 * t, NULL, 1.0, 0.0) < 0) s = -1;
        ok &= s >= 0;
    }
    if (ok && (sets == 2 || sets == 3)) { /* vertex v at its distance from the other three's face */
        int s = pbd_world_add_set(w, &pbd_tet_plane_type, 0);
        static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
        for (int t = 0; s >= 0 && t < m->n_tets; t++)
            for (int v = 0; s >= 0 && v < 4; v++) {
                const int32_t *tet = m->tet + 4 * t;
                int32_t row[4] = {tet[face[v][0]], tet[v], tet[face[v][1]], tet[face[v][2]]};
                if (pbd_set_add(w, s, row, NULL, 1.0, 0.0) < 0) s = -1;
            }
        ok &= s >= 0;
    }
    if (!ok) {
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

static void inversion(const pbd_world *w, const pbd_tetmesh *m, const double *v0,
                      double *fraction, double *min_ratio)
{
    int inverted = 0;
    double mn = INFINITY;
    for (int t = 0; t < m->n_tets; t++) {
        const int32_t *q = m->tet + 4 * t;
        double V = pbd_tet_volume(w->x + 3 * q[0], w->x + 3 * q[1], w->x + 3 * q[2], w->x + 3 * q[3]);
        double r = V / v0[t];
        inverted += r < 0.0;
        mn = fmin(mn, r);
    }
    *fraction = (double)inverted / m->n_tets;
    *min_ratio = mn;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int body, int sets)
{
    pbd_tetmesh m;
    if (rest_mesh(body, &m) != 0) return pbd_error(PBD_EINVAL, "tet_inversion: %s", pbd_last_error());
    pbd_world *w = build(sets, &m);
    double *v0 = malloc((size_t)m.n_tets * sizeof *v0);
    if (!w || !v0) {
        free(v0);
        pbd_world_free(w);
        pbd_tetmesh_free(&m);
        return pbd_error(PBD_EINVAL, "tet_inversion: cannot build the %s", body_words[body]);
    }
    for (int t = 0; t < m.n_tets; t++) {
        const int32_t *q = m.tet + 4 * t;
        v0[t] = pbd_tet_volume(m.x + 3 * q[0], m.x + 3 * q[1], m.x + 3 * q[2], m.x + 3 * q[3]);
    }
    invert(body, w);
    memcpy(w->p, w->x, 3 * (size_t)w->n * sizeof(double));
    w->def.dt = 1.0 / P.rate;
    w->def.iterations = P.iterations;
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    pbd_status st = log ? PBD_OK : PBD_EIO;
    double frac0 = 0, min0 = 0, frac = 0, mn = 0;
    if (log) {
        inversion(w, &m, v0, &frac0, &min0);
        pbd_h5log_attr_string(log, "body", body_words[body]);
        pbd_h5log_attr_string(log, "constraint_sets", set_words[sets]);
        pbd_h5log_attr_int(log, "tets", m.n_tets);
        pbd_h5log_attr_double(log, "initial_inverted_fraction", frac0);
    }
    int c_f = log ? pbd_h5log_column(log, "inverted_fraction", 1, "1") : -1;
    int c_m = log ? pbd_h5log_column(log, "min_volume_ratio", 1, "1") : -1;
    long recovered_at = -1;
    for (int s = 1; log && s <= P.steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        inversion(w, &m, v0, &frac, &mn);
        if (frac == 0.0 && recovered_at < 0) recovered_at = s;
        if (frac > 0.0) recovered_at = -1;
        pbd_h5log_set1(log, c_f, frac);
        pbd_h5log_set1(log, c_m, mn);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, P.steps);
    }
    if (log && st == PBD_OK) {
        pbd_h5log_attr_double(log, "result.final_inverted_fraction", frac);
        pbd_h5log_attr_double(log, "result.final_min_volume_ratio", mn);
        pbd_h5log_attr_double(log, "result.recovered_at_step", (double)recovered_at);
        st = pbd_exp_log_finish(ctx, log, "inverted tets %.0f%% -> %.0f%%, min V/V0 %.3g%s",
                                100.0 * frac0, 100.0 * frac, mn,
                                recovered_at > 0 ? " (recovered)" : "");
    } else if (log) {
        pbd_exp_log_abort(ctx, log, st);
    }
    free(v0);
    pbd_world_free(w);
    pbd_tetmesh_free(&m);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    int bodies[4], sets[8];
    int n_b = pbd_exp_words(ctx, "bodies", P.bodies, body_words, bodies, 4);
    int n_s = pbd_exp_words(ctx, "sets", P.sets, set_words, sets, 8);
    if (n_b < 0 || n_s < 0) return PBD_EINVAL;
    for (int b = 0; b < n_b; b++)
        for (int s = 0; s < n_s; s++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", body_words[bodies[b]], set_names[sets[s]]);
            if (!pbd_exp_want(ctx, name)) continue;
            int st = run_one(ctx, name, bodies[b], sets[s]);
            if (st != PBD_OK) return st;
        }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    double rows[64 * 4];
    int n = 0;
    char text[1024] = "fraction of tets still inverted at the end:";
    for (int i = 0; i < ctx->n_runs && n < 64; i++) {
        char path[4096], body[16], sets[32];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + 4 * n;
        if (pbd_h5_read_attr_string(path, "body", body, sizeof body) ||
            pbd_h5_read_attr_string(path, "constraint_sets", sets, sizeof sets) ||
            pbd_h5_read_attr_double(path, "result.final_inverted_fraction", &r[2]) ||
            pbd_h5_read_attr_double(path, "result.final_min_volume_ratio", &r[3]))
            continue;
        r[0] = strcmp(body, "tet") == 0 ? 0 : 1;
        r[1] = 0;
        for (int k = 0; set_words[k]; k++)
            if (strcmp(sets, set_words[k]) == 0) r[1] = k;
        char part[96];
        snprintf(part, sizeof part, "%s %s %s %.0f%%", n ? ";" : "", body, sets, 100.0 * r[2]);
        strncat(text, part, sizeof text - strlen(text) - 1);
        n++;
    }
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) return PBD_EIO;
    const char *cols[] = {"body", "sets", "final_inverted_fraction", "final_min_volume_ratio"};
    pbd_exp_summary_table(s, "final", rows, n, 4, cols,
                          "0=tet,1=beam 0=distance,1=+volume,2=plane,3=distance+plane 1 1");
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_tet_inversion = {
    .name = "tet_inversion",
    .description = "seed tetrahedron-constraint-gradients: an inverted tetrahedron and a mirrored "
                   "tet beam under edge distances alone, + signed volume, plane constraints, "
                   "distances + planes",
    .paper = "seed: inverted tetrahedra stay inverted with distance constraints alone and "
             "recover with the plane or the (signed) volume constraint",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
