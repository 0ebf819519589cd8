/* Private to constraints/: random hinges (two triangles on a shared edge) for the bending
 * types' sample functions, in the contract's order (p1, p2, p3, p4), p1–p2 the edge. */
#ifndef PBD_HINGE_SAMPLE_H
#define PBD_HINGE_SAMPLE_H

#include "pbd_constraint.h"

/* Fill x (12 doubles) with a hinge in a random frame at a random place:
 *   p1 = o, p2 = o + len ê,
 *   p3 = o + t3 len ê + h3 u,          (foot at fraction t3 of the edge, height h3)
 *   p4 = o + t4 len ê + h4 u',  u' = cos(phi) u ± sin(phi) (ê × u),
 * so the opening angle between the two half-planes, acos(n1·n2), is exactly phi
 * (phi = π: flat, phi = 0: folded onto itself). The sign ± is random. */
void pbd_hinge_build(pbd_rng *r, double len, double t3, double h3, double t4, double h4,
                     double phi, double *x);

/* A well-conditioned hinge: edge in [0.5, 2], heights in [0.3, 1.5] × edge, feet within
 * [-0.3, 1.3] of the edge, opening angle phi uniform in [margin, π - margin]. */
void pbd_hinge_random(pbd_rng *r, double margin, double *x);

#endif
