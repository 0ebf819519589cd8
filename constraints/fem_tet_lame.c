/* Tets with rest {D_m⁻¹, V0, μ, λ} whose Ψ takes the Lamé parameters (StVK and corotated,
 * constraints/fem_tet_stvk.c, fem_tet_corotated.c): material(), rest() and the samples. */
#include "fem.h"

#include <math.h>

double fem_tet_lame_material(const pbd_eval_input *in, double E, double nu, int component,
                             double *rest)
{
    (void)component;
    double mu, lambda;
    fem_tet_rest(in->x, rest, &rest[9]);
    if (!fem_lame(E, nu, &mu, &lambda) || isinf(lambda)) {
        rest[10] = rest[11] = 0.0;
        return NAN;
    }
    rest[10] = mu;
    rest[11] = lambda;
    return 1.0;
}

/* From x: E = 1 Pa, ν = 1/4 (μ = λ = 0.4 Pa); builders call material(). */
void fem_tet_lame_rest(const pbd_eval_input *in, double *rest)
{
    fem_tet_lame_material(in, 1.0, 0.25, 0, rest);
}

int fem_tet_lame_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                        int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 4, fem_tet_lame_material, 1, 0.45, x, rest);
}
