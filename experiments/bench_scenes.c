/* Scenes for the performance table and the fast-path tests (README "Performance"): a cloth
 * grid with bending hinges, a tetrahedral beam, and hinges built from any triangle list.
 * The cloth is pbd_scene_cloth's (same particles, same distance constraints, same order);
 * the bending set is added after it. */
#include "pbd_experiments.h"

#include <stdlib.h>

typedef struct edge_ref {
    int32_t lo, hi; /* the edge, lo < hi */
    int32_t a, b;   /* its endpoints in the triangle's orientation */
    int32_t opp;    /* the triangle's third vertex */
} edge_ref;

static int edge_cmp(const void *x, const void *y)
{
    const edge_ref *e = x, *f = y;
    if (e->lo != f->lo) return e->lo < f->lo ? -1 : 1;
    if (e->hi != f->hi) return e->hi < f->hi ? -1 : 1;
    return e->opp < f->opp ? -1 : e->opp > f->opp; /* a deterministic order */
}

int pbd_add_hinges(pbd_world *w, const pbd_constraint_type *type, const int32_t *tri, int n_tri,
                   double stiffness, double compliance)
{
    edge_ref *e = malloc((size_t)(n_tri > 0 ? 3 * n_tri : 1) * sizeof *e);
    if (!e) return -1;
    int m = 0;
    for (int t = 0; t < n_tri; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3], c = tri[3 * t + (k + 2) % 3];
            e[m++] = (edge_ref){a < b ? a : b, a < b ? b : a, a, b, c};
        }
    qsort(e, (size_t)m, sizeof *e, edge_cmp);
    int set = pbd_world_add_set(w, type, 0), hinges = 0;
    for (int i = 0; set >= 0 && i + 1 < m; i++) {
        if (e[i].lo != e[i + 1].lo || e[i].hi != e[i + 1].hi) continue;
        /* (p1, p2) the shared edge, p3 and p4 the opposite vertices (pbd_constraint.h) */
        int32_t idx[4] = {e[i].a, e[i].b, e[i].opp, e[i + 1].opp};
        if (pbd_set_add(w, set, idx, NULL, stiffness, compliance) < 0) {
            set = -1;
            break;
        }
        hinges++;
        i++; /* a manifold edge has two triangles; a third one starts a new pair */
    }
    free(e);
    return set < 0 ? -1 : hinges;
}

pbd_world *pbd_bench_cloth(const pbd_scene_params *sp, const pbd_constraint_type *bending,
                           double bend_stiffness, double bend_compliance)
{
    pbd_world *w = pbd_scene_cloth(sp);
    if (!w || !bending) return w;
    /* laid flat (x-y -> x-z) before the hinges take their rest angles: hanging in its own
     * plane the cloth would stay flat, every hinge on the kink at φ = π and skipped; lying
     * down it drapes from the two attached corners and folds */
    for (int i = 0; i < w->n; i++) {
        double *x = w->x + 3 * i, *p = w->p + 3 * i;
        x[2] = -x[1];
        x[1] = 0.0;
        p[0] = x[0], p[1] = x[1], p[2] = x[2];
    }
    for (int a = 0; a < w->n_attach; a++)
        for (int c = 0; c < 3; c++)
            w->attach_anchor[3 * a + c] = w->attach_target[3 * a + c] =
                w->x[3 * (size_t)w->attach_idx[a] + c];
    int r = sp->resolution > 1 ? sp->resolution : 16;
    int32_t *tri = malloc((size_t)2 * (r - 1) * (r - 1) * 3 * sizeof *tri);
    if (!tri) {
        pbd_world_free(w);
        return NULL;
    }
    int n = 0;
    for (int j = 0; j + 1 < r; j++)
        for (int i = 0; i + 1 < r; i++) { /* the two triangles of pbd_scene_cloth's quad */
            int32_t v = j * r + i;
            int32_t t[6] = {v, v + 1, v + r + 1, v, v + r + 1, v + r};
            for (int k = 0; k < 6; k++) tri[3 * n + k] = t[k];
            n += 2;
        }
    int hinges = pbd_add_hinges(w, bending, tri, n, bend_stiffness, bend_compliance);
    free(tri);
    if (hinges < 0) {
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

/* A beam of nx × ny × nz cubes along x, each split into the 6 tetrahedra around its main
 * diagonal (Kuhn's split, conforming between neighbours), with distance constraints on the
 * tetrahedra's edges and a tet_volume constraint per tetrahedron; the x = 0 end attached. */
pbd_world *pbd_bench_tet_beam(int nx, int ny, int nz, double size, double total_mass,
                              double stiffness, double compliance)
{
    int px = nx + 1, py = ny + 1, pz = nz + 1, n = px * py * pz;
    pbd_world *w = pbd_world_create(n);
    if (!w) return NULL;
    double m = total_mass / n;
    for (int k = 0; k < pz; k++)
        for (int j = 0; j < py; j++)
            for (int i = 0; i < px; i++) {
                double x[3] = {size * i, size * j, size * k};
                pbd_world_set_particle(w, (k * py + j) * px + i, x, NULL, m);
            }
    int n_tet = 6 * nx * ny * nz;
    int32_t *tet = malloc((size_t)(n_tet > 0 ? n_tet : 1) * 4 * sizeof *tet);
    edge_ref *e = malloc((size_t)(n_tet > 0 ? 6 * n_tet : 1) * sizeof *e);
    if (!tet || !e) goto fail;
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int t = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                for (int p = 0; p < 6; p++) { /* v000 → +e_a → +e_a+e_b → v111 */
                    int c[3] = {i, j, k};
                    tet[4 * t] = (c[2] * py + c[1]) * px + c[0];
                    for (int s = 0; s < 3; s++) {
                        c[perm[p][s]]++;
                        tet[4 * t + s + 1] = (c[2] * py + c[1]) * px + c[0];
                    }
                    t++;
                }
    int me = 0;
    for (t = 0; t < n_tet; t++)
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                int32_t u = tet[4 * t + a], v = tet[4 * t + b];
                e[me++] = (edge_ref){u < v ? u : v, u < v ? v : u, u, v, 0};
            }
    qsort(e, (size_t)me, sizeof *e, edge_cmp);
    int dist = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int a = 0; a < me; a++) {
        if (a > 0 && e[a].lo == e[a - 1].lo && e[a].hi == e[a - 1].hi) continue;
        int32_t idx[2] = {e[a].lo, e[a].hi};
        if (pbd_set_add(w, dist, idx, NULL, stiffness, compliance) < 0) goto fail;
    }
    int vol = pbd_world_add_set(w, &pbd_tet_volume_type, 0);
    for (t = 0; t < n_tet; t++)
        if (pbd_set_add(w, vol, tet + 4 * t, NULL, stiffness, compliance) < 0) goto fail;
    for (int k = 0; k < pz; k++)
        for (int j = 0; j < py; j++) pbd_world_attach(w, (k * py + j) * px);
    free(tet);
    free(e);
    return w;
fail:
    free(tet);
    free(e);
    pbd_world_free(w);
    return NULL;
}
