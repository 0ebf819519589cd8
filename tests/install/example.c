/* One XPBD projection (Macklin et al. 2016, Eq. 18) from an installed pbdlab:
 *   cc $(pkg-config --cflags pbdlab) example.c $(pkg-config --libs pbdlab)
 * Two particles with exact inverse masses, one distance constraint, one Gauss–Seidel update
 * with λ already 0.25 (a later iteration). `make test-install` (tests/install/check.sh)
 * compares what it prints with Eq. 18 worked out independently. */
#include <stdio.h>

#include "solver/pbd.h"

int main(void)
{
    const double x1[3] = {0.2, -0.4, 1.0}, x2[3] = {1.5, 0.3, 0.1};
    const double w1 = 0.11, w2 = 0.7;                   /* inverse masses, 1/kg */
    const double d = 1.2, alpha = 1e-3, dt = 1.0 / 60;  /* rest length m, compliance m/N, s */
    pbd_world *w = pbd_world_create(2);
    if (!w || pbd_world_set_particle_w(w, 0, x1, NULL, w1) != PBD_OK ||
        pbd_world_set_particle_w(w, 1, x2, NULL, w2) != PBD_OK) {
        fprintf(stderr, "example: %s\n", pbd_last_error());
        return 1;
    }
    /* particles 0 and 1 are the world's first six doubles: the gathered input as it is */
    pbd_eval_input in = {w->x, 2, &d, NULL, 0};
    double x_out[6], grad[6], lambda = 0.25, alpha_tilde = alpha / (dt * dt);
    for (int i = 0; i < 6; i++) x_out[i] = w->x[i];
    printf("input %.17g %.17g %.17g %.17g %.17g", w->w[0], w->w[1], d, alpha_tilde, lambda);
    for (int i = 0; i < 6; i++) printf(" %.17g", w->x[i]);
    int st = pbd_project_generic_xpbd(&pbd_distance_type, &in, w->w, alpha_tilde, &lambda,
                                      x_out, grad);
    printf("\nstatus %d\nlambda %.17g\nx", st, lambda);
    for (int i = 0; i < 6; i++) printf(" %.17g", x_out[i]);
    printf("\n");
    pbd_world_free(w);
    return st == PBD_EVAL_OK ? 0 : 1;
}
