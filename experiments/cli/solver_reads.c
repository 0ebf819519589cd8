/* Which solver options can act under the chosen method and scheme, so that a program refuses
 * a given one that cannot, with the reason, instead of ignoring it: the solver's side of
 * experiments/scenes/scene_reads.c (experiments/README.md "Robustness"). Each rule below
 * names what reads the option (solver/README.md). */
#include "pbd_cli.h"

#include <stdio.h>
#include <string.h>

static int is(const char *option, const char *name) { return strcmp(option, name) == 0; }

/* the option starts with prefix ("newton-", "vbd-", "avbd-") */
static int family(const char *option, const char *prefix)
{
    return strncmp(option, prefix, strlen(prefix)) == 0;
}

const char *pbd_solver_unread(const pbd_solver_def *d, const pbd_solver_context *ctx,
                              const char *option)
{
    static char why[256];
    int m = (int)d->method, projections = m == PBD_METHOD_PBD || m == PBD_METHOD_XPBD;
    const char *method = pbd_method_name(m);
    if (is(option, "iterations") && m == PBD_METHOD_NEWTON)
        return "--method=newton iterates to --newton-tol, at most --newton-max-iterations "
               "times per (sub)step";
    if (is(option, "linearize") && m != PBD_METHOD_PBD) {
        snprintf(why, sizeof why, "it linearises PBD's stiffness k over the iterations; "
                 "--method=%s does not project with k", method);
        return why;
    }
    if ((is(option, "scheme") || is(option, "kernels")) && !projections) {
        snprintf(why, sizeof why, "it chooses how PBD/XPBD sweep their projections; "
                 "--method=%s has its own solve (solver/README.md)", method);
        return why;
    }
    if (is(option, "rod-projection") && !projections) {
        snprintf(why, sizeof why, "it chooses how PBD/XPBD project the rods' constraints; "
                 "--method=%s has its own solve (solver/README.md)", method);
        return why;
    }
    if (is(option, "sor-omega") && !(projections && d->scheme == PBD_SCHEME_JACOBI))
        return "it over-relaxes the Jacobi sweep: give --scheme=jacobi (PBD or XPBD)";
    if (is(option, "sort-by-colour") && !(projections && d->scheme == PBD_SCHEME_COLORED_GS))
        return "it orders the coloured sweep: give --scheme=colored (PBD or XPBD)";
    if (is(option, "threads")) {
        if (m == PBD_METHOD_NEWTON)
            return "the Newton reference's threads are its BLAS's (PBD_BLAS_THREADS, "
                   "solver/newton/README.md \"The BLAS\")";
        if (projections && !ctx->fluid && d->scheme != PBD_SCHEME_COLORED_GS)
            return "Gauss-Seidel and Jacobi sweep on one thread (--scheme=colored runs on several)";
    }
    if (is(option, "xpbd-damping") && m != PBD_METHOD_XPBD) {
        snprintf(why, sizeof why, "XPBD's constraint damping (Eq. 26) acts through the "
                 "compliance; --method=%s has none", method);
        return why;
    }
    if (is(option, "k-damping") && d->damping == PBD_DAMPING_NONE)
        return "it is the coefficient of --damping: give --damping=scale or momentum";
    if (family(option, "newton-") && m != PBD_METHOD_NEWTON && !ctx->reference)
        return "it sets the Newton reference: give --method=newton or --reference=newton";
    if (family(option, "vbd-") && m != PBD_METHOD_VBD && m != PBD_METHOD_AVBD)
        return "it sets VBD's solve: give --method=vbd or avbd";
    if (family(option, "avbd-") && m != PBD_METHOD_AVBD)
        return "it sets AVBD's augmented Lagrangian: give --method=avbd";
    if (is(option, "watch-residual") && d->measure_every == 0)
        return "it bounds the measured residuals, and --measure-every=0 measures none";
    if (is(option, "record-iterations") && !ctx->out)
        return "the iterations' residuals go to the run file: give --out";
    return NULL;
}
