/* Tearing (PBD Sec. 5): "Whenever the stretching of an edge exceeds a specified threshold
 * value, we select one of the edge's adjacent vertices. We then put a split plane through
 * that vertex perpendicular to the edge direction and split the vertex. All triangles above
 * the split plane are assigned to the original vertex while all triangles below are
 * assigned to the duplicate." The rules this file adds to keep the mesh and the
 * constraints consistent are listed in pbd_tearing.h ("tearing").
 *
 * Data: the triangles in particle indices and, per vertex, a linked list of its corners
 * (corner 3t + j is vertex j of triangle t), so that a vertex's fan is found in O(fan). A
 * split never adds or removes a triangle: it moves some of v's corners to a new vertex d.
 * The constraints are found by their index rows (never by remembered positions in the
 * sets, which the coloured solver may reorder). */
#include "tear_state.h"

#include "constraints/vec3.h"
#include "solver/collision/pbd_collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- vertex storage ------------------------------------------------------------------ */

/* Particles the mesh does not know yet (added by others) become vertices without
 * triangles, their current positions taken as rest positions. */
static pbd_status tear_sync_vertices(const pbd_world *w, pbd_tearing *t)
{
    pbd_status st = tear_reserve_vertices(t, w->n);
    if (st != PBD_OK) return st;
    for (int i = t->mesh.n_vertices; i < w->n; i++) {
        memcpy(t->mesh.x + 3 * (size_t)i, w->x + 3 * (size_t)i, 3 * sizeof(double));
        t->head[i] = -1;
        t->mark[i] = 0;
        t->parent[i] = -1;
    }
    if (w->n > t->mesh.n_vertices) t->mesh.n_vertices = w->n;
    return PBD_OK;
}
/* ---- the pass ------------------------------------------------------------------------ */

typedef struct tear_candidate {
    double stretch;
    int32_t a, b;
} tear_candidate;

/* Most stretched first; ties by the vertices, so that the order is deterministic. */
static int candidate_cmp(const void *pa, const void *pb)
{
    const tear_candidate *a = pa, *b = pb;
    if (a->stretch != b->stretch) return a->stretch > b->stretch ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static int edge_exists(const pbd_tearing *t, int32_t a, int32_t b)
{
    for (int32_t c = t->head[a]; c >= 0; c = t->next[c])
        if (tear_tri_has(t->mesh.tri + 3 * (size_t)(c / 3), b)) return 1;
    return 0;
}

static int fan_size(const pbd_tearing *t, int32_t v)
{
    int k = 0;
    for (int32_t c = t->head[v]; c >= 0; c = t->next[c]) k++;
    return k;
}

pbd_status pbd_tearing_apply(pbd_world *w, pbd_tearing *t, int *n_splits)
{
    if (n_splits) *n_splits = 0;
    pbd_status st = tear_sync_vertices(w, t);
    if (st != PBD_OK) return st;
    t->pass++;
    const long repairs0 = t->repairs;
    /* the edges beyond the threshold, from the distance rows as they are now */
    const pbd_constraint_set *s = &w->sets[t->dist_set];
    const int nr = s->type->n_rest > 0 ? s->type->n_rest : 1;
    int n_cand = 0;
    tear_candidate *cand = NULL;
    for (int c = 0; c < s->count; c++) {
        int32_t a = s->idx[2 * c], b = s->idx[2 * c + 1];
        double L = s->rest[(size_t)c * nr];
        const double *xa = w->x + 3 * (size_t)a, *xb = w->x + 3 * (size_t)b;
        double dx = xa[0] - xb[0], dy = xa[1] - xb[1], dz = xa[2] - xb[2];
        double stretch = (sqrt(dx * dx + dy * dy + dz * dz) - L) / L;
        if (!(L > 0.0) || !(stretch > t->threshold)) continue;
        if (!cand) cand = malloc((size_t)s->count * sizeof *cand);
        if (!cand) return pbd_error(PBD_ENOMEM, "tearing: out of memory for %d edges", s->count);
        cand[n_cand++] = (tear_candidate){stretch, a, b};
    }
    if (n_cand > 1) qsort(cand, (size_t)n_cand, sizeof *cand, candidate_cmp);
    int done = 0;
    for (int i = 0; i < n_cand && (t->max_splits <= 0 || done < t->max_splits); i++) {
        int32_t a = cand[i].a, b = cand[i].b;
        /* an earlier split of this pass may have moved the edge to a duplicate */
        if (!edge_exists(t, a, b)) continue;
        int32_t first = fan_size(t, b) > fan_size(t, a) ? b : a, second = first == a ? b : a;
        const int32_t order[2][2] = {{first, second}, {second, first}};
        for (int o = 0; o < 2; o++) {
            int32_t v = order[o][0], u = order[o][1];
            if (t->mark[v] == t->pass || !(w->w[v] > 0.0)) continue;
            int r = tear_try_split(w, t, v, u);
            if (r < 0) {
                free(cand);
                return PBD_ENOMEM;
            }
            if (r > 0) {
                done++;
                break;
            }
        }
    }
    free(cand);
    int changed = done > 0 || t->repairs != repairs0;
    t->splits += done;
    if (n_splits) *n_splits = done;
    if (changed && t->share_triangles)
        return pbd_world_set_cloth_triangles(w, t->mesh.tri, t->mesh.n_triangles);
    return PBD_OK;
}

/* ---- creation ------------------------------------------------------------------------ */

static int edge_cmp(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* A cloth: no zero-area triangle (|e1 × e2| <= 1e-12 × longest edge², as the mesh checks)
 * and no edge in more than two triangles. */
static pbd_status check_cloth(const pbd_tear_mesh *m)
{
    const char *src = m->source ? m->source : "tearing";
    for (int t = 0; t < m->n_triangles; t++) {
        const int32_t *q = m->tri + 3 * (size_t)t;
        double e[3][3], n[3], longest = 0.0;
        for (int j = 0; j < 3; j++) {
            v3_sub(e[j], m->x + 3 * (size_t)q[(j + 1) % 3], m->x + 3 * (size_t)q[j]);
            longest = fmax(longest, v3_dot(e[j], e[j]));
        }
        v3_cross(n, e[0], e[1]);
        if (!(sqrt(v3_dot(n, n)) > 1e-12 * longest))
            return pbd_error(PBD_EINPUT, "%s: triangle %d: expected a non-zero area, found a "
                             "degenerate triangle", src, t);
    }
    int32_t *edges = malloc(6 * (size_t)m->n_triangles * sizeof *edges);
    if (!edges) return pbd_error(PBD_ENOMEM, "tearing: out of memory");
    for (int c = 0; c < 3 * m->n_triangles; c++) {
        int32_t a = m->tri[c], b = m->tri[c - c % 3 + (c % 3 + 1) % 3];
        edges[2 * c] = a < b ? a : b;
        edges[2 * c + 1] = a < b ? b : a;
    }
    qsort(edges, 3 * (size_t)m->n_triangles, 2 * sizeof *edges, edge_cmp);
    pbd_status st = PBD_OK;
    for (int c = 2; c < 3 * m->n_triangles && st == PBD_OK; c++)
        if (!edge_cmp(edges + 2 * c, edges + 2 * (c - 2)))
            st = pbd_error(PBD_EINPUT, "%s: edge %d-%d: expected at most two triangles on an "
                           "edge (a manifold cloth), found more", src, edges[2 * c],
                           edges[2 * c + 1]);
    free(edges);
    return st;
}

pbd_tearing *pbd_tearing_create(const pbd_world *w, const pbd_tear_mesh *m, int distance_set,
                                int bending_set, double threshold)
{
    if (!(threshold > 0.0 && isfinite(threshold))) {
        pbd_error(PBD_EINVAL, "tearing: expected a threshold (relative stretch) > 0, found %g",
                  threshold);
        return NULL;
    }
    if (distance_set < 0 || distance_set >= w->n_sets || w->sets[distance_set].arity != 2 ||
        (bending_set >= 0 && (bending_set >= w->n_sets || w->sets[bending_set].arity != 4)) ||
        bending_set < -1) {
        pbd_error(PBD_EINVAL, "tearing: expected a distance set (arity 2) and a bending set "
                  "(arity 4) or -1 among the world's %d sets, found %d and %d", w->n_sets,
                  distance_set, bending_set);
        return NULL;
    }
    if (m->n_vertices > w->n || m->n_triangles < 1) {
        pbd_error(PBD_EINVAL, "tearing: expected a mesh with triangles and at most the world's "
                  "%d particles, found %d vertices and %d triangles", w->n, m->n_vertices,
                  m->n_triangles);
        return NULL;
    }
    for (int i = 0; i < 3 * m->n_triangles; i++)
        if (m->tri[i] < 0 || m->tri[i] >= m->n_vertices) {
            pbd_error(PBD_EINVAL, "tearing: triangle %d: expected vertex indices in [0, %d), "
                      "found %d", i / 3, m->n_vertices, m->tri[i]);
            return NULL;
        }
    if (check_cloth(m) != PBD_OK) return NULL;
    pbd_tearing *t = calloc(1, sizeof *t);
    if (!t) {
        pbd_error(PBD_ENOMEM, "tearing: out of memory");
        return NULL;
    }
    size_t nt = (size_t)m->n_triangles;
    t->threshold = threshold;
    t->dist_set = distance_set;
    t->bend_set = bending_set;
    t->mesh.n_triangles = m->n_triangles;
    t->mesh.tri = malloc(3 * nt * sizeof *t->mesh.tri);
    t->next = malloc(3 * nt * sizeof *t->next);
    t->fan = malloc(nt * sizeof *t->fan);
    t->fan2 = malloc(nt * sizeof *t->fan2);
    t->loc = malloc(3 * nt * sizeof *t->loc);
    t->ord = malloc(nt * sizeof *t->ord);
    t->comp = malloc(nt * sizeof *t->comp);
    t->copy = malloc(nt * sizeof *t->copy);
    t->copy_comp = malloc(nt * sizeof *t->copy_comp);
    t->moved = calloc(nt, 1);
    t->seen = malloc(nt);
    t->below = malloc(nt);
    t->cut = malloc(2 * nt * sizeof *t->cut);
    if (!t->mesh.tri || !t->next || !t->fan || !t->fan2 || !t->loc || !t->ord || !t->comp ||
        !t->copy || !t->copy_comp || !t->moved || !t->seen || !t->below || !t->cut ||
        tear_reserve_vertices(t, w->n) != PBD_OK) {
        pbd_tearing_free(t);
        pbd_error(PBD_ENOMEM, "tearing: out of memory for %d triangles", m->n_triangles);
        return NULL;
    }
    memcpy(t->mesh.tri, m->tri, 3 * nt * sizeof *t->mesh.tri);
    memcpy(t->mesh.x, m->x, 3 * (size_t)m->n_vertices * sizeof *t->mesh.x);
    for (int i = 0; i < m->n_vertices; i++) {
        t->head[i] = -1;
        t->mark[i] = 0;
        t->parent[i] = -1;
    }
    t->mesh.n_vertices = m->n_vertices;
    if (tear_sync_vertices(w, t) != PBD_OK) {
        pbd_tearing_free(t);
        return NULL;
    }
    for (int c = 3 * m->n_triangles - 1; c >= 0; c--) { /* lists in corner order */
        t->next[c] = t->head[t->mesh.tri[c]];
        t->head[t->mesh.tri[c]] = c;
    }
    /* every vertex's triangles must form one fan (a disk or a half-disk) */
    for (int v = 0; v < t->mesh.n_vertices; v++) {
        int k = tear_load_fan(t, v, -1, -1), cycle;
        int n_fans = k > 0 ? tear_walk_fan(t, k, v, &cycle) : 0;
        if (n_fans > 1) {
            pbd_error(PBD_EINPUT, "%s: vertex %d: expected its triangles to form one fan "
                      "(a manifold vertex), found %d fans meeting only at the vertex",
                      m->source ? m->source : "tearing", v, n_fans);
            pbd_tearing_free(t);
            return NULL;
        }
    }
    return t;
}

void pbd_tearing_free(pbd_tearing *t)
{
    if (!t) return;
    free(t->mesh.x);
    free(t->mesh.tri);
    free(t->head);
    free(t->next);
    free(t->mark);
    free(t->parent);
    free(t->fan);
    free(t->fan2);
    free(t->loc);
    free(t->ord);
    free(t->comp);
    free(t->copy);
    free(t->copy_comp);
    free(t->moved);
    free(t->seen);
    free(t->below);
    free(t->cut);
    free(t->rest_buf);
    free(t);
}

pbd_status pbd_tearing_share_triangles(pbd_world *w, pbd_tearing *t)
{
    t->share_triangles = 1;
    return pbd_world_set_cloth_triangles(w, t->mesh.tri, t->mesh.n_triangles);
}

void pbd_tearing_set_max_splits(pbd_tearing *t, int max_splits)
{
    t->max_splits = max_splits > 0 ? max_splits : 0;
}

static pbd_status tear_hook(pbd_world *w, void *user) { return pbd_tearing_apply(w, user, NULL); }
static void tear_free(void *user) { pbd_tearing_free(user); }

pbd_status pbd_tearing_attach(pbd_world *w, pbd_tearing *t)
{
    if (w->post_step)
        return pbd_error(PBD_EINVAL, "tearing: expected a world without a post-step hook, "
                         "found one already set");
    w->post_step = tear_hook;
    w->post_step_user = t;
    w->post_step_free = tear_free;
    return PBD_OK;
}

pbd_tearing *pbd_world_tearing(const pbd_world *w)
{
    return w->post_step == tear_hook ? w->post_step_user : NULL;
}

pbd_tear_mesh pbd_tearing_mesh(const pbd_tearing *t)
{
    pbd_tear_mesh m = {t->mesh.n_vertices, t->mesh.x, t->mesh.n_triangles, t->mesh.tri, NULL};
    return m;
}
int pbd_tearing_parent(const pbd_tearing *t, int i)
{
    return i >= 0 && i < t->mesh.n_vertices ? t->parent[i] : -1;
}
long pbd_tearing_splits(const pbd_tearing *t) { return t->splits; }
long pbd_tearing_repairs(const pbd_tearing *t) { return t->repairs; }
