/* pbdlab from an installed copy, as a user's program (C11 or C++):
 *   cc  $(pkg-config --cflags pbdlab) example.c $(pkg-config --libs pbdlab)
 *   g++ -x c++ $(pkg-config --cflags pbdlab) example.c -x none $(pkg-config --libs pbdlab)
 * 1. One XPBD projection (Macklin et al. 2016, Eq. 18): two particles with exact inverse
 *    masses, one distance constraint, one Gauss–Seidel update with λ already 0.25 (a later
 *    iteration). `make test-install` (tests/install/check.sh) compares what it prints with
 *    Eq. 18 worked out independently.
 * 2. A world stepped (solver/README.md "Linking pbdlab"): a pendulum, particle 0 pinned and
 *    particle 1 on a rigid rod of 1 m, the method chosen in the solver definition, half a second
 *    of steps; check.sh checks the rod's length and that the bob swung down. */
#include <math.h>
#include <stdio.h>

#include <pbdlab/solver/pbd.h>

static int failed(pbd_world *w)
{
    fprintf(stderr, "example: %s\n", pbd_last_error());
    pbd_world_free(w);
    return 1;
}

static int pendulum(void)
{
    const double pivot[3] = {0, 0, 0}, bob[3] = {1, 0, 0};
    const int32_t rod[2] = {0, 1};
    pbd_world *w = pbd_world_create(2);
    if (!w) return failed(w);
    pbd_world_set_particle(w, 0, pivot, NULL, 0.0); /* mass 0: pinned */
    pbd_world_set_particle(w, 1, bob, NULL, 1.0);   /* 1 kg */
    int set = pbd_world_add_set(w, &pbd_distance_type, 2);
    /* rest NULL: the rest length from the positions (1 m); stiffness 1 (PBD), compliance 0 */
    if (set < 0 || pbd_set_add(w, set, rod, NULL, 1.0, 0.0) < 0) return failed(w);
    pbd_solver_def def = pbd_solver_def_default(); /* gravity -9.81 m/s² along y */
    def.method = PBD_METHOD_XPBD;                   /* or PBD_METHOD_PBD, PBD_METHOD_NEWTON */
    def.dt = 1.0 / 60;
    def.iterations = 10;
    if (pbd_solver_def_validate(&def) != PBD_OK) return failed(w);
    w->def = def; /* the world steps with whatever its def says */
    for (int i = 0; i < 30; i++) /* half a second: about a quarter period */
        if (pbd_step(w) != PBD_OK) return failed(w);
    double len = sqrt(w->x[3] * w->x[3] + w->x[4] * w->x[4] + w->x[5] * w->x[5]);
    printf("pendulum t %.17g length %.17g y %.17g\n", w->time, len, w->x[4]);
    pbd_world_free(w);
    return 0;
}

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
    if (st != PBD_EVAL_OK) return 1;
    return pendulum();
}
