/* balloon_volume: the overpressure constraint of a closed triangle mesh (PBD Sec. 4.4)
 *
 *   C(p_1, …, p_N) = Σ_tri (p_t1 × p_t2)·p_t3 - k_pressure V0          (PBD Eq. 14)
 *
 * One equality over all N vertices of the mesh: the set's arity is N (the type's is 0,
 * variable), aux holds the triangles in local indices (3 per triangle, counter-clockwise
 * seen from outside), rest {V0, k_pressure}.
 *
 * Convention: each term (p_t1 × p_t2)·p_t3 is 6× the signed volume of the tet (0, p_t1,
 * p_t2, p_t3), so Eq. 14's sum is 6× the enclosed volume (not the volume, as the paper's
 * text says). V0 here is that same sum at the rest configuration, i.e. 6× the rest volume,
 * so C = 0 exactly when the volume is k_pressure × the rest volume.
 *
 * Internal: the sum is a sum of determinants, invariant to rotation about the origin, and,
 * for a closed mesh, to translation (Σ_i ∇_i C = 2 Σ_tri (area vector) = 0). */
#include "pbd_constraint.h"
#include "sample_shapes.h"

#include <assert.h>

/* Σ_tri (p_t1 × p_t2)·p_t3 over the mesh in in->aux; gradient (3·arity doubles) when
 * grad != NULL, accumulated triangle by triangle (PBD Eq. 15):
 *   ∇_{p_t1} += p_t2 × p_t3,  ∇_{p_t2} += p_t3 × p_t1,  ∇_{p_t3} += p_t1 × p_t2. */
static double mesh_triple_sum(const pbd_eval_input *in, double *grad)
{
    assert(in->n_aux % 3 == 0);
    const double *x = in->x;
    if (grad)
        for (int i = 0; i < 3 * in->arity; i++) grad[i] = 0.0;
    double sum = 0.0;
    for (int t = 0; t + 2 < in->n_aux; t += 3) {
        int i1 = in->aux[t], i2 = in->aux[t + 1], i3 = in->aux[t + 2];
        assert(i1 >= 0 && i1 < in->arity && i2 >= 0 && i2 < in->arity && i3 >= 0 &&
               i3 < in->arity);
        const double *a = x + 3 * i1, *b = x + 3 * i2, *c = x + 3 * i3;
        double ab[3];
        v3_cross(ab, a, b);
        sum += v3_dot(ab, c);
        if (grad) {
            double bc[3], ca[3];
            v3_cross(bc, b, c);
            v3_cross(ca, c, a);
            v3_add(grad + 3 * i1, grad + 3 * i1, bc);
            v3_add(grad + 3 * i2, grad + 3 * i2, ca);
            v3_add(grad + 3 * i3, grad + 3 * i3, ab);
        }
    }
    return sum;
}

/* Below this |∇C| against the mesh's squared size the mesh has collapsed: skip. */
#define BALLOON_REL_EPS 1e-12

/* C (Eq. 14) and ∇C (Eq. 15) side by side. Degenerate when the gradient vanishes against
 * the squared size of the mesh (all vertices coincident, or no triangles); that status is
 * decided only when the gradient is asked for (grad != NULL). */
static int balloon_volume_eval(const pbd_eval_input *in, double *C, double *grad)
{
    *C = mesh_triple_sum(in, grad) - in->rest[1] * in->rest[0];
    if (!grad) return PBD_EVAL_OK;
    double g2 = 0.0, l2 = 0.0;
    for (int i = 0; i < in->arity; i++) {
        double d[3];
        v3_sub(d, in->x + 3 * i, in->x);
        if (v3_dot(d, d) > l2) l2 = v3_dot(d, d);
        g2 += v3_dot(grad + 3 * i, grad + 3 * i);
    }
    double scale = BALLOON_REL_EPS * l2;
    if (!(g2 > scale * scale) || !isfinite(g2) || !isfinite(*C)) return PBD_EVAL_DEGENERATE;
    return PBD_EVAL_OK;
}

/* V0 = the Eq. 14 sum at the configuration (6× its volume); k_pressure = 1 (no
 * overpressure) until a builder sets another value. */
static void balloon_volume_rest(const pbd_eval_input *in, double *rest)
{
    rest[0] = mesh_triple_sum(in, NULL);
    rest[1] = 1.0;
}

/* The unit octahedron and the icosahedron; faces are oriented outward by the sampler. */
static const double octahedron_vertices[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                                 {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
static const int32_t octahedron_faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                               {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
#define PHI 1.6180339887498949
static const double icosahedron_vertices[12][3] = {
    {-1, PHI, 0}, {1, PHI, 0}, {-1, -PHI, 0}, {1, -PHI, 0}, {0, -1, PHI}, {0, 1, PHI},
    {0, -1, -PHI}, {0, 1, -PHI}, {PHI, 0, -1}, {PHI, 0, 1}, {-PHI, 0, -1}, {-PHI, 0, 1}};
static const int32_t icosahedron_faces[20][3] = {
    {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
    {11, 10, 2}, {10, 7, 6}, {7, 1, 8},   {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
    {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};

/* An octahedron or an icosahedron of random size and place, each vertex perturbed by 5%
 * of the size, rest V0 within ±20% of the configuration's and k_pressure in [1, 2];
 * degenerate != 0: the mesh flattened to 1e-9 of its size (volume ~ 0, gradient defined),
 * shrunk to 1e-7, or collapsed onto one point (gradient zero: degenerate). */
static int balloon_volume_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                 int32_t *aux, int *n_aux)
{
    int ico = pbd_rng_uniform(r) < 0.5;
    int nv = ico ? 12 : 6, nt = ico ? 20 : 8;
    const double(*v)[3] = ico ? icosahedron_vertices : octahedron_vertices;
    const int32_t(*f)[3] = ico ? icosahedron_faces : octahedron_faces;
    for (int t = 0; t < nt; t++) { /* outward: (a × b)·c > 0 for the centred solid */
        double ab[3];
        v3_cross(ab, v[f[t][0]], v[f[t][1]]);
        int flip = v3_dot(ab, v[f[t][2]]) < 0.0;
        aux[3 * t] = f[t][0];
        aux[3 * t + 1] = f[t][flip ? 2 : 1];
        aux[3 * t + 2] = f[t][flip ? 1 : 2];
    }
    *n_aux = 3 * nt;
    double centre[3], s = pbd_rng_range(r, 0.5, 2.0);
    ss_box(r, centre);
    for (int i = 0; i < nv; i++) {
        ss_gauss3(r, x + 3 * i, centre, 0.05 * s);
        v3_axpy(x + 3 * i, s, v[i]);
    }
    pbd_eval_input in = {x, nv, NULL, aux, *n_aux};
    rest[0] = mesh_triple_sum(&in, NULL) * pbd_rng_range(r, 0.8, 1.2);
    rest[1] = pbd_rng_range(r, 1.0, 2.0);
    if (!degenerate) return nv;
    int mode = (int)(pbd_rng_next(r) % 3);
    for (int i = 0; i < nv; i++) {
        double *p = x + 3 * i;
        if (mode == 0) p[2] = centre[2] + 1e-9 * (p[2] - centre[2]);
        if (mode == 1)
            for (int k = 0; k < 3; k++) p[k] = centre[k] + 1e-7 * (p[k] - centre[k]);
        if (mode == 2) v3_copy(p, centre);
    }
    return nv;
}

const pbd_constraint_type pbd_balloon_volume_type = {
    .name = "balloon_volume",
    .description = "sum_tri (p_t1 x p_t2)·p_t3 - k_pressure V0, closed mesh (PBD Eq. 14-15)",
    .unit = "m^3",
    .arity = 0,
    .n_rest = 2,
    .inequality = 0,
    .internal = 1,
    .eval = balloon_volume_eval,
    .rest = balloon_volume_rest,
    .sample = balloon_volume_sample,
    .project_closed_form = NULL,
};
