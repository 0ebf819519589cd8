/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every platform. */
#include "pbd_constraint.h"

#include <math.h>

void pbd_rng_seed(pbd_rng *r, uint64_t seed) { r->state = seed; }

uint64_t pbd_rng_next(pbd_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double pbd_rng_uniform(pbd_rng *r) { return (double)(pbd_rng_next(r) >> 11) * 0x1.0p-53; }

double pbd_rng_range(pbd_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * pbd_rng_uniform(r);
}

/* Box–Muller; one of the pair is discarded to keep the generator stateless beyond one word. */
double pbd_rng_gaussian(pbd_rng *r)
{
    double u1 = pbd_rng_uniform(r), u2 = pbd_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void pbd_rng_unit(pbd_rng *r, double *v, int n, double min_norm)
{
    double s;
    do {
        s = 0.0;
        for (int k = 0; k < n; k++) {
            v[k] = pbd_rng_gaussian(r);
            s += v[k] * v[k];
        }
    } while (s < min_norm * min_norm);
    s = sqrt(s);
    for (int k = 0; k < n; k++) v[k] /= s;
}
