/* Small 3-vector helpers: internal to the library (constraints/ and solver/), never part
 * of a public header. */
#ifndef PBD_VEC3_H
#define PBD_VEC3_H

#include <math.h>

static inline void v3_sub(double *r, const double *a, const double *b)
{
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void v3_add(double *r, const double *a, const double *b)
{
    r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void v3_scale(double *r, const double *a, double s)
{
    r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s;
}
/* r += s a */
static inline void v3_axpy(double *r, double s, const double *a)
{
    r[0] += s * a[0]; r[1] += s * a[1]; r[2] += s * a[2];
}
static inline double v3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void v3_cross(double *r, const double *a, const double *b)
{
    double t0 = a[1] * b[2] - a[2] * b[1];
    double t1 = a[2] * b[0] - a[0] * b[2];
    double t2 = a[0] * b[1] - a[1] * b[0];
    r[0] = t0; r[1] = t1; r[2] = t2;
}
static inline double v3_norm(const double *a) { return sqrt(v3_dot(a, a)); }
static inline void v3_copy(double *r, const double *a) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
static inline void v3_zero(double *r) { r[0] = r[1] = r[2] = 0.0; }

#endif
