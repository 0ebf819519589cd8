/* Building worlds from meshes: particles from vertices, distance constraints on edges,
 * attachments chosen by position (so that a user's mesh is pinned like the generated one). */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the cells pbd_scene_build asked for (one build at a time per thread) */
static _Thread_local pbd_scene_cells *keep;

static int32_t *copy_ints(const int32_t *a, size_t n)
{
    int32_t *b = malloc((n ? n : 1) * sizeof *b);
    if (b && n) memcpy(b, a, n * sizeof *b);
    return b;
}

void scene_keep_triangles(const int32_t *tri, int n)
{
    if (!keep || n <= 0) return;
    free(keep->triangles);
    keep->triangles = copy_ints(tri, 3 * (size_t)n);
    keep->n_triangles = keep->triangles ? n : 0;
}

void scene_keep_tets(const int32_t *tet, int n)
{
    if (!keep || n <= 0) return;
    free(keep->tets);
    keep->tets = copy_ints(tet, 4 * (size_t)n);
    keep->n_tets = keep->tets ? n : 0;
}

pbd_world *pbd_scene_build(const pbd_scene_entry *e, const pbd_scene_params *sp,
                           pbd_scene_cells *cells)
{
    if (cells) memset(cells, 0, sizeof *cells);
    keep = cells;
    pbd_world *w = e->build(sp);
    keep = NULL;
    for (int i = 0; w && i < w->n; i++) /* a mass whose inverse overflows: every method alike */
        if (!isfinite(w->w[i])) {
            if (w->fluid)
                pbd_error(PBD_EINVAL, "--fluid-density: expected particles whose inverse masses "
                          "are finite, found %g kg/m^3: particle %d has 1/m = %g",
                          sp->fluid.rest_density, i, w->w[i]);
            else
                pbd_error(PBD_EINVAL, "--mass: expected a total mass whose particles' inverse "
                          "masses are finite, found %g kg over %d particles: particle %d has "
                          "1/m = %g", sp->total_mass, w->n, i, w->w[i]);
            pbd_world_free(w);
            w = NULL;
        }
    if (!w && cells) pbd_scene_cells_free(cells);
    return w;
}

void pbd_scene_cells_free(pbd_scene_cells *cells)
{
    if (!cells) return;
    free(cells->triangles);
    free(cells->tets);
    memset(cells, 0, sizeof *cells);
}

pbd_status scene_inputs(const pbd_scene_params *sp, const char *scene, int takes_mesh,
                        int takes_tet)
{
    if (sp->mesh_path && !takes_mesh)
        return pbd_error(PBD_EINVAL, "--mesh: expected a scene built on a triangle surface "
                         "(cloth, cloth_bend, cloth_bag, balloon), found %s, which takes none",
                         scene);
    if (sp->tet_path && !takes_tet)
        return pbd_error(PBD_EINVAL, "--tet: expected a scene built on tetrahedra (tet_beam), "
                         "found %s, which takes none", scene);
    return PBD_OK;
}

int scene_side(const pbd_scene_params *sp, const char *scene, int fallback)
{
    if (sp->resolution == 1) {
        pbd_error(PBD_EINVAL, "%s: --resolution: expected 0 (the default, %d) or at least 2 "
                  "particles along a side, found 1", scene, fallback);
        return -1;
    }
    return sp->resolution > 1 ? sp->resolution : fallback;
}

pbd_world *scene_world(int n_vertices, const double *x, const double *mass, double total_mass)
{
    pbd_world *w = pbd_world_create(n_vertices);
    if (!w) {
        pbd_error(PBD_ENOMEM, "out of memory for %d particles", n_vertices);
        return NULL;
    }
    for (int i = 0; i < n_vertices; i++)
        pbd_world_set_particle(w, i, x + 3 * i, NULL, mass ? mass[i] : total_mass / n_vertices);
    return w;
}

int scene_add_edges(pbd_world *w, int n_edges, const int32_t *edges, double k, double alpha)
{
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    if (set < 0) return -1;
    for (int e = 0; e < n_edges; e++)
        if (pbd_set_add(w, set, edges + 2 * e, NULL, k, alpha) < 0) return -1;
    return set;
}

/* Tolerance for "on the same level": 1e-9 of the world's extent. */
double scene_extent(const pbd_world *w)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], w->x[3 * i + k]);
            hi[k] = fmax(hi[k], w->x[3 * i + k]);
        }
    double e = 0.0;
    for (int k = 0; k < 3; k++) e = fmax(e, hi[k] - lo[k]);
    return e;
}

void scene_attach_top_corners(pbd_world *w)
{
    if (w->n == 0) return;
    double tol = 1e-9 * scene_extent(w), top = -INFINITY;
    for (int i = 0; i < w->n; i++) top = fmax(top, w->x[3 * i + 1]);
    int left = -1, right = -1;
    for (int i = 0; i < w->n; i++) {
        if (w->x[3 * i + 1] < top - tol) continue;
        if (left < 0 || w->x[3 * i] < w->x[3 * left]) left = i;
        if (right < 0 || w->x[3 * i] > w->x[3 * right]) right = i;
    }
    pbd_world_attach(w, left);
    if (right != left) pbd_world_attach(w, right);
}

void scene_attach_top_extremes(pbd_world *w)
{
    if (w->n == 0) return;
    double tol = 1e-9 * scene_extent(w), top = -INFINITY;
    for (int i = 0; i < w->n; i++) top = fmax(top, w->x[3 * i + 1]);
    int best[4] = {-1, -1, -1, -1};
    double score[4];
    for (int i = 0; i < w->n; i++) {
        if (w->x[3 * i + 1] < top - tol) continue;
        for (int d = 0; d < 4; d++) {
            double s = (d & 1 ? -1.0 : 1.0) * w->x[3 * i] + (d & 2 ? -1.0 : 1.0) * w->x[3 * i + 2];
            if (best[d] < 0 || s > score[d]) {
                best[d] = i;
                score[d] = s;
            }
        }
    }
    for (int d = 0; d < 4; d++) {
        int seen = 0;
        for (int e = 0; e < d; e++) seen |= best[e] == best[d];
        if (!seen) pbd_world_attach(w, best[d]);
    }
}

int scene_attach_side(pbd_world *w, int axis, int max_side)
{
    if (w->n == 0) return 0;
    double tol = 1e-9 * scene_extent(w), end = max_side ? -INFINITY : INFINITY;
    for (int i = 0; i < w->n; i++)
        end = max_side ? fmax(end, w->x[3 * i + axis]) : fmin(end, w->x[3 * i + axis]);
    int n = 0;
    for (int i = 0; i < w->n; i++)
        if (fabs(w->x[3 * i + axis] - end) <= tol) {
            pbd_world_attach(w, i);
            n++;
        }
    return n;
}
