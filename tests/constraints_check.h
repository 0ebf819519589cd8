/* Helpers of the constraint-type suites (tests/test_constraints.c, suite `constraints`, and
 * tests/test_constraints_projection.c, suite `constraints_projection`): the types they
 * cover, a drawn instance and its evaluation, the octahedron. Private to the tests. */
#ifndef PBD_CONSTRAINTS_CHECK_H
#define PBD_CONSTRAINTS_CHECK_H

#include <math.h>
#include <string.h>

#include "tests.h"

#define N_SAMPLES 200
#define MAX_X (3 * PBD_SAMPLE_MAX_ARITY)

/* The types of these suites, in registry order. */
static const pbd_constraint_type *const types[] = {
    &pbd_tet_volume_type,      &pbd_tet_plane_type,      &pbd_plane_collision_type,
    &pbd_point_triangle_type,  &pbd_self_collision_type, &pbd_balloon_volume_type,
    &pbd_attachment_type,
};
#define N_TYPES ((int)(sizeof types / sizeof types[0]))

/* One drawn instance. */
typedef struct sample {
    double x[MAX_X], rest[8];
    int32_t aux[PBD_SAMPLE_MAX_AUX];
    int arity, n_aux;
} sample;

static inline void draw(const pbd_constraint_type *t, pbd_rng *r, int degenerate,
                        sample *s)
{
    memset(s, 0, sizeof *s);
    s->arity = t->sample(r, degenerate, s->x, s->rest, s->aux, &s->n_aux);
}

static inline pbd_eval_input input_of(const sample *s, const double *x)
{
    pbd_eval_input in = {x, s->arity, s->rest, s->n_aux ? s->aux : NULL, s->n_aux};
    return in;
}

static inline int eval_at(const pbd_constraint_type *t, const sample *s, const double *x,
                          double *C, double *grad)
{
    pbd_eval_input in = input_of(s, x);
    return t->eval(&in, C, grad);
}

static inline double eval_c(const pbd_constraint_type *t, const sample *s,
                            const double *x)
{
    double C;
    eval_at(t, s, x, &C, NULL);
    return C;
}

static inline double max_abs(const double *a, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(a[i]) > m) m = fabs(a[i]);
    return m;
}

static inline double rng_mass(pbd_rng *r) { return pbd_rng_range(r, 0.1, 10.0); }

/* The octahedron with vertices ±e_x, ±e_y, ±e_z, faces counter-clockwise seen from
 * outside; its volume is 4/3. */
static const double octahedron[18] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
static const int32_t octahedron_tris[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                                            2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};

#endif
