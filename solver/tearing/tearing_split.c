/* One vertex split of a tearing pass (PBD Sec. 5): the fan of a vertex walked into arcs,
 * the triangles above the split plane moved to a duplicate, and the distance and bending
 * rows rewritten to match (solver/tearing/pbd_tearing.h states the rules). */
#include "tear_state.h"

#include "constraints/vec3.h"
#include "solver/collision/pbd_collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- vertex storage ------------------------------------------------------------------ */

pbd_status tear_reserve_vertices(pbd_tearing *t, int n)
{
    if (n <= t->vert_cap) return PBD_OK;
    int cap = t->vert_cap > 0 ? t->vert_cap : 16;
    while (cap < n) cap = cap > INT32_MAX / 2 ? INT32_MAX : 2 * cap;
    double *x = realloc(t->mesh.x, 3 * (size_t)cap * sizeof *x);
    if (x) t->mesh.x = x;
    int32_t *h = realloc(t->head, (size_t)cap * sizeof *h);
    if (h) t->head = h;
    int32_t *mk = realloc(t->mark, (size_t)cap * sizeof *mk);
    if (mk) t->mark = mk;
    int32_t *pa = realloc(t->parent, (size_t)cap * sizeof *pa);
    if (pa) t->parent = pa;
    if (!x || !h || !mk || !pa) return pbd_error(PBD_ENOMEM, "tearing: out of memory for %d vertices", n);
    t->vert_cap = cap;
    return PBD_OK;
}

/* Triangles of v, into out; returns their number. */
static int tear_fan_of(const pbd_tearing *t, int v, int32_t *out)
{
    int k = 0;
    for (int32_t c = t->head[v]; c >= 0; c = t->next[c]) out[k++] = c / 3;
    return k;
}

int tear_tri_has(const int32_t *tri, int32_t u)
{
    return tri[0] == u || tri[1] == u || tri[2] == u;
}

int tear_same_vertices(const int32_t *a, const int32_t *b)
{
    return tear_tri_has(b, a[0]) && tear_tri_has(b, a[1]) && tear_tri_has(b, a[2]) && tear_tri_has(a, b[0]) &&
           tear_tri_has(a, b[1]) && tear_tri_has(a, b[2]);
}

/* ---- fans ---------------------------------------------------------------------------- */

/* Two triangles of the fan around cv are neighbours when they share a vertex besides cv
 * (an edge from cv). */
static int neighbours(const int32_t *a, const int32_t *b, int32_t cv)
{
    for (int p = 0; p < 3; p++)
        if (a[p] != cv && tear_tri_has(b, a[p])) return 1;
    return 0;
}

/* Walk the fan of k triangles around cv whose vertices are loc[3i..3i+2]: t->ord gets the
 * slots in walk order, each component contiguous and a chain walked from one end; t->comp
 * the component of each walk position. Returns the number of components; *cycle is set
 * when there is one component and it closes on itself (cv is interior). */
int tear_walk_fan(pbd_tearing *t, int k, int32_t cv, int *cycle)
{
    const int32_t *loc = t->loc;
    memset(t->seen, 0, (size_t)k);
    int placed = 0, n_comp = 0, all_two = 1;
    while (placed < k) {
        int start = -1;
        for (int i = 0; i < k && start < 0; i++) {
            if (t->seen[i]) continue;
            int deg = 0;
            for (int j = 0; j < k; j++)
                if (j != i && neighbours(loc + 3 * i, loc + 3 * j, cv)) deg++;
            if (deg < 2) start = i;
        }
        if (start < 0)
            for (int i = 0; i < k && start < 0; i++)
                if (!t->seen[i]) start = i;
        for (int cur = start; cur >= 0;) {
            t->seen[cur] = 1;
            t->ord[placed] = cur;
            t->comp[placed++] = n_comp;
            int nxt = -1, deg = 0;
            for (int j = 0; j < k; j++) {
                if (j == cur || !neighbours(loc + 3 * cur, loc + 3 * j, cv)) continue;
                deg++;
                if (!t->seen[j] && nxt < 0) nxt = j;
            }
            if (deg != 2) all_two = 0;
            cur = nxt;
        }
        n_comp++;
    }
    *cycle = n_comp == 1 && all_two && k >= 3;
    return n_comp;
}

/* Load the fan of u into t->fan2 / t->loc as the mesh will be once the triangles flagged
 * in t->moved trade v for d (pass v = -1 for the mesh as it is). Returns its size. */
int tear_load_fan(pbd_tearing *t, int u, int32_t v, int32_t d)
{
    int k = tear_fan_of(t, u, t->fan2);
    for (int i = 0; i < k; i++) {
        const int32_t *tri = t->mesh.tri + 3 * (size_t)t->fan2[i];
        for (int j = 0; j < 3; j++)
            t->loc[3 * i + j] = (v >= 0 && t->moved[t->fan2[i]] && tri[j] == v) ? d : tri[j];
    }
    return k;
}

/* ---- constraints --------------------------------------------------------------------- */

pbd_status tear_reserve_rest(pbd_tearing *t, int n)
{
    if (n <= t->rest_cap) return PBD_OK;
    double *r = realloc(t->rest_buf, (size_t)n * sizeof *r);
    if (!r) return pbd_error(PBD_ENOMEM, "tearing: out of memory");
    t->rest_buf = r;
    t->rest_cap = n;
    return PBD_OK;
}

/* Side of the edge v–u in v's fan (k triangles in t->fan): bit 0 = a staying triangle
 * holds it, bit 1 = a moving one. */
static int edge_sides(const pbd_tearing *t, int k, int32_t u)
{
    int sides = 0;
    for (int i = 0; i < k; i++)
        if (tear_tri_has(t->mesh.tri + 3 * (size_t)t->fan[i], u)) sides |= t->moved[t->fan[i]] ? 2 : 1;
    return sides;
}

/* Distance rows on v: an edge only the moving side holds goes to d; one that both sides
 * hold (the split cuts it) keeps its row and gets a copy on d with the same rest values. */
static pbd_status update_edges(pbd_world *w, pbd_tearing *t, int32_t v, int32_t d, int k)
{
    const int set = t->dist_set;
    const int count0 = w->sets[set].count, nr = w->sets[set].type->n_rest;
    pbd_status st = tear_reserve_rest(t, nr > 0 ? nr : 1);
    for (int c = 0; st == PBD_OK && c < count0; c++) {
        const pbd_constraint_set *s = &w->sets[set];
        int32_t row[2] = {s->idx[2 * c], s->idx[2 * c + 1]};
        int j = row[0] == v ? 0 : row[1] == v ? 1 : -1;
        if (j < 0) continue;
        int sides = edge_sides(t, k, row[1 - j]);
        row[j] = d;
        if (sides == 2) {
            st = pbd_set_rewrite(w, set, c, row);
        } else if (sides == 3) {
            memcpy(t->rest_buf, s->rest + (size_t)c * (nr > 0 ? nr : 1),
                   (size_t)nr * sizeof(double));
            if (pbd_set_add(w, set, row, t->rest_buf, s->stiffness[c], s->compliance[c]) < 0)
                st = PBD_ENOMEM;
        }
    }
    return st;
}

/* Where triangle (a, b, c) of v's fan goes: 0 stays, 1 moves, -1 it does not hold v,
 * -2 it is not a triangle of the mesh. */
static int triangle_side(const pbd_tearing *t, int k, int32_t v, int32_t a, int32_t b, int32_t c)
{
    const int32_t q[3] = {a, b, c};
    if (!tear_tri_has(q, v)) return -1;
    for (int i = 0; i < k; i++)
        if (tear_same_vertices(q, t->mesh.tri + 3 * (size_t)t->fan[i])) return t->moved[t->fan[i]];
    return -2;
}

/* Bending rows on v, stencil (p1, p2, p3, p4) with triangles (p1, p2, p3), (p1, p2, p4):
 * kept when both triangles stay, moved to d when the triangles holding v move, removed
 * when the split separates the two triangles (v on the hinge's edge, sides differ). */
static pbd_status update_hinges(pbd_world *w, pbd_tearing *t, int32_t v, int32_t d, int k)
{
    if (t->bend_set < 0) return PBD_OK;
    const int set = t->bend_set;
    pbd_status st = PBD_OK;
    for (int c = w->sets[set].count - 1; st == PBD_OK && c >= 0; c--) {
        int32_t row[4];
        memcpy(row, w->sets[set].idx + 4 * (size_t)c, sizeof row);
        if (!tear_tri_has(row, v) && row[3] != v) continue;
        int s1 = triangle_side(t, k, v, row[0], row[1], row[2]);
        int s2 = triangle_side(t, k, v, row[0], row[1], row[3]);
        if (s1 == -2 || s2 == -2) continue; /* not a hinge of the mesh: not ours */
        if (s1 >= 0 && s2 >= 0 && s1 != s2) {
            st = pbd_set_remove(w, set, c);
        } else if (s1 == 1 || s2 == 1) {
            for (int j = 0; j < 4; j++)
                if (row[j] == v) row[j] = d;
            st = pbd_set_rewrite(w, set, c, row);
        }
    }
    return st;
}

/* ---- one split ----------------------------------------------------------------------- */

static double rest_area(const pbd_tearing *t, int32_t tri)
{
    const int32_t *q = t->mesh.tri + 3 * (size_t)tri;
    const double *a = t->mesh.x + 3 * (size_t)q[0], *b = t->mesh.x + 3 * (size_t)q[1],
                 *c = t->mesh.x + 3 * (size_t)q[2];
    double e1[3], e2[3], n[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = b[j] - a[j];
        e2[j] = c[j] - a[j];
    }
    v3_cross(n, e1, e2);
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Move the triangles of v's fan (k triangles, loaded into t->fan) flagged in t->moved to a
 * new particle d: same position and velocity, v's mass split by the rest areas of the two
 * sides. The constraints and the corner lists follow. Returns d, or -1. */
int tear_split_off(pbd_world *w, pbd_tearing *t, int32_t v, int k)
{
    double a_stay = 0.0, a_move = 0.0;
    int n_move = 0;
    for (int i = 0; i < k; i++) {
        double a = rest_area(t, t->fan[i]);
        if (t->moved[t->fan[i]]) {
            a_move += a;
            n_move++;
        } else {
            a_stay += a;
        }
    }
    /* lumped mass m_v = Σ_t ρ A_t / 3 splits into the two sides' sums */
    double f = (a_stay > 0.0 && a_move > 0.0) ? a_move / (a_stay + a_move) : (double)n_move / k;
    double m = 1.0 / w->w[v], m_d = f * m, m_v = m - m_d;
    double x[3], vel[3];
    memcpy(x, w->x + 3 * (size_t)v, sizeof x);
    memcpy(vel, w->v + 3 * (size_t)v, sizeof vel);
    if (tear_reserve_vertices(t, w->n + 1) != PBD_OK) return -1;
    int d = pbd_world_add_particle(w, x, vel, m_d);
    if (d < 0) return -1;
    memcpy(w->p + 3 * (size_t)d, w->p + 3 * (size_t)v, 3 * sizeof(double));
    w->w[v] = 1.0 / m_v;
    memcpy(t->mesh.x + 3 * (size_t)d, t->mesh.x + 3 * (size_t)v, 3 * sizeof(double));
    t->head[d] = -1;
    t->mark[d] = t->pass;
    t->parent[d] = v;
    t->mesh.n_vertices = d + 1;
    if (update_edges(w, t, v, d, k) != PBD_OK || update_hinges(w, t, v, d, k) != PBD_OK)
        return -1;
    /* the triangles and the corner lists: v's moving corners go to d, in order */
    int32_t *keep = &t->head[v], *take = &t->head[d];
    for (int32_t c = t->head[v]; c >= 0;) {
        int32_t nx = t->next[c];
        if (t->moved[c / 3]) {
            t->mesh.tri[c] = d;
            *take = c;
            take = &t->next[c];
        } else {
            *keep = c;
            keep = &t->next[c];
        }
        c = nx;
    }
    *keep = *take = -1;
    return d;
}

/* The split moved triangles of v to d and so cut the edges v–u that a staying and a moving
 * triangle shared. A u on the boundary may now have its triangles in separate fans: each
 * fan but the largest gets its own duplicate (no edge is shared between fans, so no
 * constraint is cut: the rows only follow their triangles). Returns PBD_OK or an error. */
pbd_status tear_repair(pbd_world *w, pbd_tearing *t, int32_t u)
{
    int k = tear_load_fan(t, u, -1, -1), cycle;
    int n_comp = tear_walk_fan(t, k, u, &cycle);
    if (n_comp < 2) return PBD_OK;
    int keep = 0, best = -1;
    for (int c = 0; c < n_comp; c++) {
        int size = 0;
        for (int i = 0; i < k; i++) size += t->comp[i] == c;
        if (size > best) {
            best = size;
            keep = c;
        }
    }
    for (int i = 0; i < k; i++) {
        t->copy[i] = t->fan2[t->ord[i]];
        t->copy_comp[i] = t->comp[i];
    }
    const int k0 = k;
    for (int c = 0; c < n_comp; c++) {
        if (c == keep) continue;
        for (int i = 0; i < k0; i++) t->moved[t->copy[i]] = t->copy_comp[i] == c;
        k = tear_fan_of(t, u, t->fan); /* u's fan as it is now: earlier pieces have left */
        int d = tear_split_off(w, t, u, k);
        for (int i = 0; i < k0; i++) t->moved[t->copy[i]] = 0;
        if (d < 0) return PBD_ENOMEM;
        t->repairs++;
    }
    t->mark[u] = t->pass;
    return PBD_OK;
}

/* The best split of a fan in walk order (slots t->ord, signs below[]: 1 = below the plane)
 * into two contiguous arcs: the fewest triangles on the other side of the plane than
 * their arc's. Chain: a prefix and the rest; cycle: an arc and its complement. Sets
 * t->moved of the arc that goes to the duplicate. */
static void choose_arcs(pbd_tearing *t, int k, int cycle, const unsigned char *below)
{
    int best = k + 1, b_start = 0, b_len = 1, b_flip = 0;
    if (!cycle) {
        for (int cut = 1; cut < k; cut++)
            for (int flip = 0; flip < 2; flip++) {
                int miss = 0; /* prefix stays (flip 0) or moves (flip 1) */
                for (int i = 0; i < k; i++) miss += below[i] != ((i < cut) == flip);
                if (miss < best) {
                    best = miss;
                    b_start = 0;
                    b_len = cut;
                    b_flip = flip;
                }
            }
    } else {
        int n_below = 0;
        for (int i = 0; i < k; i++) n_below += below[i];
        for (int s = 0; s < k; s++) {
            int arc_above = 0, arc_below = 0; /* the arc stays; the complement moves */
            for (int len = 1; len < k; len++) {
                if (below[(s + len - 1) % k]) arc_below++; else arc_above++;
                int miss = arc_below + (k - len - (n_below - arc_below));
                if (miss < best) {
                    best = miss;
                    b_start = s;
                    b_len = len;
                    b_flip = 0;
                }
            }
        }
    }
    for (int i = 0; i < k; i++) {
        int in_arc = ((i - b_start + k) % k) < b_len;
        t->moved[t->fan2[t->ord[i]]] = (unsigned char)(in_arc == b_flip);
    }
}

/* Try to split v by the plane through x_v perpendicular to the edge v–u. Returns 1 when
 * done, 0 when not (one side empty, or a pinned neighbour would have to be split), -1 on
 * error. */
int tear_try_split(pbd_world *w, pbd_tearing *t, int32_t v, int32_t u)
{
    int k = tear_load_fan(t, v, -1, -1), cycle;
    if (k < 2) return 0;
    if (tear_walk_fan(t, k, v, &cycle) != 1) return 0; /* cannot happen: fans stay single */
    const double *xv = w->x + 3 * (size_t)v, *xu = w->x + 3 * (size_t)u;
    double n[3] = {xu[0] - xv[0], xu[1] - xv[1], xu[2] - xv[2]};
    unsigned char *below = t->below;
    int n_below = 0;
    for (int i = 0; i < k; i++) {
        const int32_t *q = t->loc + 3 * t->ord[i];
        double s = 0.0; /* (centroid - x_v)·n, times 3 */
        for (int j = 0; j < 3; j++) {
            const double *y = w->x + 3 * (size_t)q[j];
            s += (y[0] - xv[0]) * n[0] + (y[1] - xv[1]) * n[1] + (y[2] - xv[2]) * n[2];
        }
        below[i] = s < 0.0; /* "above": on the side of the edge; stays with v */
        n_below += below[i];
    }
    if (n_below == 0 || n_below == k) return 0; /* one side would have no triangle */
    choose_arcs(t, k, cycle, below);
    int32_t *fan = t->copy;
    for (int i = 0; i < k; i++) fan[i] = t->fan2[i];
    /* the cut edges' far vertices; a pinned one whose fan the cut would separate stops it */
    int n_cut = 0, ok = 1;
    for (int i = 0; i < k && ok; i++)
        for (int j = 0; j < 3; j++) {
            int32_t y = t->mesh.tri[3 * (size_t)fan[i] + j];
            if (y == v) continue;
            int seen = 0;
            for (int c = 0; c < n_cut; c++) seen |= t->cut[c] == y;
            if (seen) continue;
            int sides = 0;
            for (int q = 0; q < k; q++)
                if (tear_tri_has(t->mesh.tri + 3 * (size_t)fan[q], y)) sides |= t->moved[fan[q]] ? 2 : 1;
            if (sides != 3) continue;
            t->cut[n_cut++] = y;
            int kk = tear_load_fan(t, y, v, -2), cyc;
            if (w->w[y] <= 0.0 && tear_walk_fan(t, kk, y, &cyc) > 1) ok = 0;
        }
    if (!ok) {
        for (int i = 0; i < k; i++) t->moved[fan[i]] = 0;
        return 0;
    }
    for (int i = 0; i < k; i++) t->fan[i] = fan[i];
    int d = tear_split_off(w, t, v, k);
    for (int i = 0; i < k; i++) t->moved[fan[i]] = 0;
    if (d < 0) return -1;
    t->mark[v] = t->pass;
    for (int c = 0; c < n_cut; c++) /* tear_repair does not touch t->cut */
        if (tear_repair(w, t, t->cut[c]) != PBD_OK) return -1;
    return 1;
}
