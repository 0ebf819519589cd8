/* The tear scene (PBD Sec. 5): a hanging cloth whose top row is pulled apart in two
 * halves until the cloth tears from the middle of its top edge down. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>

/* m/s of each held group, outward along x, until it has moved TEAR_PULL_DISTANCE (m); then
 * it holds (the torn pieces hang still, the scene stays bounded in a long run) */
#define TEAR_PULL_SPEED 0.5
#define TEAR_PULL_DISTANCE 1.0

/* The two halves of the top row are attached alternately, left first (see hold_top_row):
 * even attachments move towards -x, odd ones towards +x. */
static void pull_apart(int a, double t, const double anchor[3], double target[3], void *user)
{
    (void)user;
    double d = fmin(TEAR_PULL_SPEED * t, TEAR_PULL_DISTANCE);
    target[0] = anchor[0] + (a % 2 == 0 ? -d : d);
    target[1] = anchor[1];
    target[2] = anchor[2];
}

static int by_x(const void *pa, const void *pb, const double *x)
{
    double a = x[3 * *(const int32_t *)pa], b = x[3 * *(const int32_t *)pb];
    return (a > b) - (a < b);
}

/* Hold the top row (the vertices at the largest y, within 1e-9 of the extent) sorted by
 * x, except its middle vertex (rank n/2): the ranks below it are the left group, above it
 * the right group, attached alternately L0, R0, L1, R1, ... (the left group has as many
 * vertices as the right one, or one more, so its members all get even numbers). The free
 * middle vertex is where the cloth starts to tear: an edge between two held particles
 * could never tear (held particles are not split). */
static pbd_status hold_top_row(pbd_world *w)
{
    double top = -INFINITY, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < w->n; i++) {
        top = fmax(top, w->x[3 * i + 1]);
        for (int k = 0; k < 3; k++) {
            lo = fmin(lo, w->x[3 * i + k]);
            hi = fmax(hi, w->x[3 * i + k]);
        }
    }
    double tol = 1e-9 * (hi - lo);
    int32_t *row = malloc((size_t)w->n * sizeof *row);
    if (!row) return pbd_error(PBD_ENOMEM, "tear: out of memory");
    int n = 0;
    for (int i = 0; i < w->n; i++)
        if (w->x[3 * i + 1] >= top - tol) row[n++] = i;
    /* insertion sort by x (a row of a cloth: short), stable for equal x */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_x(&row[j - 1], &row[j], w->x) > 0; j--) {
            int32_t tmp = row[j];
            row[j] = row[j - 1];
            row[j - 1] = tmp;
        }
    pbd_status st = PBD_OK;
    if (n < 3)
        st = pbd_error(PBD_EINPUT, "tear: expected a top row of at least 3 vertices (at the "
                       "largest y) to hold, found %d", n);
    int mid = n / 2;
    for (int k = 0; st == PBD_OK && k < mid; k++) {
        if (pbd_world_attach(w, row[k]) < 0) st = PBD_ENOMEM;
        if (mid + 1 + k < n && pbd_world_attach(w, row[mid + 1 + k]) < 0) st = PBD_ENOMEM;
    }
    free(row);
    return st;
}

pbd_world *pbd_scene_tear(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    pbd_status st = scene_inputs(sp, "tear", 1, 0);
    if (st == PBD_OK) st = scene_material_inputs(sp, "tear", 0, 0); /* it tears distances */
    if (st == PBD_OK && sp->mesh_path) {
        st = pbd_trimesh_load_obj(sp->mesh_path, PBD_MESH_CLOTH, &m);
    } else if (st == PBD_OK) {
        int r = scene_side(sp, "tear", 16);
        st = r < 0 ? PBD_EINVAL : pbd_mesh_grid(r, r, sp->size, sp->size, sp->diagonal, &m);
        /* a bulge of 1 % of the size out of the x–y plane, so that the cloth leaves its
         * plane and the bending constraints act (a flat hinge is their kink: skipped) */
        for (int i = 0; st == PBD_OK && i < m.n_vertices; i++)
            m.x[3 * i + 2] = 0.01 * sp->size * sin(M_PI * m.x[3 * i] / sp->size) *
                             sin(M_PI * m.x[3 * i + 1] / sp->size);
    }
    if (st != PBD_OK) return NULL;
    pbd_world *w = NULL;
    int32_t *edges = NULL, *hinges = NULL;
    int ne = pbd_trimesh_edges(&m, &edges, NULL);
    int nh = sp->k_bend > 0.0 ? pbd_trimesh_hinges(&m, &hinges) : 0;
    if (ne < 0 || nh < 0) goto fail;
    w = scene_world(m.n_vertices, m.x, NULL, sp->total_mass);
    if (w) scene_keep_triangles(m.tri, m.n_triangles);
    int dist = w ? scene_add_edges(w, ne, edges, sp->stiffness, sp->compliance) : -1;
    if (dist < 0) goto fail;
    int bend = -1;
    if (nh > 0) { /* bending (PBD Sec. 4.1) on every interior edge, k_bend */
        bend = pbd_world_add_set(w, &pbd_bend_dihedral_type, 0);
        for (int i = 0; bend >= 0 && i < nh; i++)
            if (pbd_set_add(w, bend, hinges + 4 * i, NULL, sp->k_bend, sp->bend_compliance) < 0)
                goto fail;
        if (bend < 0) goto fail;
    }
    if (hold_top_row(w) != PBD_OK) goto fail;
    w->attach_motion = pull_apart;
    if (sp->tear_threshold > 0.0) {
        pbd_tear_mesh tm = {m.n_vertices, m.x, m.n_triangles, m.tri, m.source};
        pbd_tearing *t = pbd_tearing_create(w, &tm, dist, bend, sp->tear_threshold);
        if (!t) goto fail;
        pbd_tearing_attach(w, t);
    }
    free(edges);
    free(hinges);
    pbd_trimesh_free(&m);
    return w;
fail:
    pbd_world_free(w);
    free(edges);
    free(hinges);
    pbd_trimesh_free(&m);
    return NULL;
}
