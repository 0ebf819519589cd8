/* --pin: the vertices a mesh scene pins in place of its own (experiments/README.md "Meshes
 * and scenes"): 0-based indices, a box, the top row or the surface's open boundary. A
 * selection that is malformed, out of range or empty is refused with one line. */
#include "scene_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int refuse(const pbd_scene_params *sp, const char *scene, const char *expected)
{
    pbd_error(PBD_EINVAL, "%s: --pin: expected %s, found '%s'", scene, expected, sp->pin);
    return -1;
}

/* "I,J,...": every index in [0, n-1], each once. */
static int select_indices(const pbd_world *w, const pbd_scene_params *sp, const char *scene,
                          char *mark)
{
    char expected[160];
    snprintf(expected, sizeof expected, "0-based vertex indices in [0, %d] separated by commas "
             "(the mesh has %d vertices), box:..., top or boundary", w->n - 1, w->n);
    const char *p = sp->pin;
    for (;;) {
        char *end;
        errno = 0;
        long i = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ',') || *p == ' ' || *p == '+')
            return refuse(sp, scene, expected);
        if (i < 0 || i >= w->n) {
            pbd_error(PBD_EINVAL, "%s: --pin: expected vertex indices in [0, %d] (the mesh has "
                      "%d vertices), found %ld in '%s'", scene, w->n - 1, w->n, i, sp->pin);
            return -1;
        }
        if (mark[i]) {
            pbd_error(PBD_EINVAL, "%s: --pin: expected each index once, found %ld twice in '%s'",
                      scene, i, sp->pin);
            return -1;
        }
        mark[i] = 1;
        if (!*end) return 0;
        p = end + 1;
    }
}

/* "box:XMIN,YMIN,ZMIN,XMAX,YMAX,ZMAX" (m): the vertices inside, bounds included. */
static int select_box(const pbd_world *w, const pbd_scene_params *sp, const char *scene,
                      char *mark)
{
    const char *expected = "box:XMIN,YMIN,ZMIN,XMAX,YMAX,ZMAX, six finite numbers in m with "
                           "each min <= its max";
    double b[6];
    const char *p = sp->pin + 4;
    for (int k = 0; k < 6; k++) {
        char *end;
        b[k] = strtod(p, &end);
        if (end == p || !isfinite(b[k]) || *end != (k < 5 ? ',' : '\0') || *p == ' ')
            return refuse(sp, scene, expected);
        p = end + 1;
    }
    for (int k = 0; k < 3; k++)
        if (!(b[k] <= b[k + 3])) return refuse(sp, scene, expected);
    for (int i = 0; i < w->n; i++) {
        const double *x = w->x + 3 * i;
        int in = 1;
        for (int k = 0; k < 3; k++) in &= x[k] >= b[k] && x[k] <= b[k + 3];
        mark[i] = (char)in;
    }
    return 0;
}

/* "top": the vertices at the largest y (within 1e-9 of the extent, as the scenes' own rules). */
static void select_top(const pbd_world *w, char *mark)
{
    double tol = 1e-9 * scene_extent(w), top = -INFINITY;
    for (int i = 0; i < w->n; i++) top = fmax(top, w->x[3 * i + 1]);
    for (int i = 0; i < w->n; i++) mark[i] = w->x[3 * i + 1] >= top - tol;
}

/* "boundary": the vertices of the edges that belong to one triangle only. */
static int select_boundary(const pbd_world *w, const pbd_scene_params *sp, const char *scene,
                           const int32_t *tri, int n_tri, char *mark)
{
    if (!tri)
        return refuse(sp, scene, "indices, box:... or top (boundary is the open edge of a "
                                 "triangle surface; this scene is built on tetrahedra)");
    pbd_trimesh m = {.n_vertices = w->n, .x = w->x, .n_triangles = n_tri, .tri = (int32_t *)tri};
    int32_t *edges = NULL, *valence = NULL;
    int ne = pbd_trimesh_edges(&m, &edges, &valence);
    if (ne < 0) return -1;
    for (int e = 0; e < ne; e++)
        if (valence[e] == 1) mark[edges[2 * e]] = mark[edges[2 * e + 1]] = 1;
    free(edges);
    free(valence);
    return 0;
}

int scene_pin(pbd_world *w, const pbd_scene_params *sp, const char *scene, const int32_t *tri,
              int n_tri)
{
    if (!sp->pin) return 0;
    char *mark = calloc(w->n > 0 ? (size_t)w->n : 1, 1);
    if (!mark) {
        pbd_error(PBD_ENOMEM, "%s: --pin: out of memory", scene);
        return -1;
    }
    int rc;
    if (strcmp(sp->pin, "top") == 0) {
        select_top(w, mark);
        rc = 0;
    } else if (strcmp(sp->pin, "boundary") == 0) {
        rc = select_boundary(w, sp, scene, tri, n_tri, mark);
    } else if (strncmp(sp->pin, "box:", 4) == 0) {
        rc = select_box(w, sp, scene, mark);
    } else {
        rc = select_indices(w, sp, scene, mark);
    }
    int n = 0;
    for (int i = 0; rc == 0 && i < w->n; i++) n += mark[i];
    if (rc == 0 && n == 0) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < w->n; i++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], w->x[3 * i + k]);
                hi[k] = fmax(hi[k], w->x[3 * i + k]);
            }
        pbd_error(PBD_EINVAL, "%s: --pin: expected a selection of at least one of the %d "
                  "vertices, found none for '%s'%s (the vertices span x [%g, %g], y [%g, %g], "
                  "z [%g, %g] m)", scene, w->n, sp->pin,
                  strcmp(sp->pin, "boundary") == 0 ? ": the surface is closed" : "", lo[0],
                  hi[0], lo[1], hi[1], lo[2], hi[2]);
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < w->n; i++)
        if (mark[i] && pbd_world_attach(w, i) < 0) rc = -1;
    free(mark);
    return rc < 0 ? -1 : 1;
}
