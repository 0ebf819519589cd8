/* pbd-gradcheck [--constraint NAME] [--samples N] [--seed S] [--output PATH]:
 * check every registered constraint type's analytic gradient (analysis/gradcheck.c),
 * print one line per type and a summary, write data/results/gradcheck.h5, and exit
 * non-zero when any type fails. */
#include "experiments/pbd_experiments.h"
#include "analysis/pbd_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_names(FILE *out)
{
    for (int i = 0; i < pbd_constraint_type_count(); i++)
        fprintf(out, " %s", pbd_constraint_type_at(i)->name);
}

int main(int argc, char **argv)
{
    pbd_gradcheck_options opt = pbd_gradcheck_options_default();
    const char *constraint = NULL, *output = "data/results/gradcheck.h5";
    int samples = opt.samples, degenerate = -1, seed = (int)opt.seed, no_output = 0;
    const cli_option opts[] = {
        {"constraint", CLI_STRING, &constraint, 0, 0, 0, "check only this type (default: all)",
         NULL},
        {"samples", CLI_INT, &samples, 1, 1e8, 0, "regular random samples per type", NULL},
        {"degenerate-samples", CLI_INT, &degenerate, -1, 1e8, 0,
         "near-degenerate samples per type (-1: samples/4, rounded up)", NULL},
        {"seed", CLI_INT, &seed, 0, 1e9, 0, "random seed", NULL},
        {"output", CLI_STRING, &output, 0, 0, 0,
         "HDF5 file to write (default data/results/gradcheck.h5)", NULL},
        {"no-output", CLI_FLAG, &no_output, 0, 0, 0, "do not write the HDF5 file", NULL},
    };
    int rc = cli_parse("pbd-gradcheck", "pbd-gradcheck [options]", argc, argv, 1, opts,
                       (int)(sizeof opts / sizeof opts[0]), NULL, 0, NULL);
    int help = 0;
    for (int i = 1; i < argc; i++) help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
    if (rc == CLI_EXIT_OK && !help) return 0; /* --version */
    if (rc == CLI_EXIT_OK) {
        printf("\nConstraint types:");
        print_names(stdout);
        printf("\n\nOne line per type:\n  NAME samples=N max_rel_err=X taylor_order=Y|exact "
               "momentum=ok|n/a|FAIL [hessian_max_rel_err=X hessian_taylor_order=Y|exact] "
               "PASS|FAIL\n(the hessian_ fields for types with an analytic Hessian, checked "
               "against differences of the gradient)\nthen 'N passed, N failed'; exit status 1 "
               "when any type fails.\n");
        return 0;
    }
    if (rc != CLI_OK) return 2;
    pbd_interrupt_install_cleanup(); /* SIGINT/SIGTERM: no OUTPUT.partial-<pid> left behind */
    const pbd_constraint_type *only = NULL;
    if (constraint) {
        only = pbd_constraint_type_find(constraint);
        if (!only) {
            fprintf(stderr, "pbd-gradcheck: --constraint: expected one of");
            print_names(stderr);
            fprintf(stderr, ", found '%s'\n", constraint);
            return 2;
        }
    }
    opt.samples = samples;
    opt.degenerate_samples = degenerate >= 0 ? degenerate : (samples + 3) / 4;
    opt.seed = (uint64_t)seed;

    int n_types = only ? 1 : pbd_constraint_type_count();
    pbd_gradcheck_result *res = calloc((size_t)n_types, sizeof *res);
    if (!res) {
        fprintf(stderr, "pbd-gradcheck: expected memory for %d results, found none\n", n_types);
        return 1;
    }
    int passed = 0, failed = 0, status = 0;
    for (int i = 0; i < n_types; i++) {
        const pbd_constraint_type *t = only ? only : pbd_constraint_type_at(i);
        if (pbd_gradcheck_type(t, &opt, &res[i]) != PBD_OK) {
            fprintf(stderr, "pbd-gradcheck: %s\n", pbd_last_error());
            status = 1;
            n_types = i;
            break;
        }
        char line[512];
        pbd_gradcheck_format_line(line, sizeof line, &res[i]);
        printf("%s\n", line);
        fflush(stdout);
        if (res[i].pass) passed++;
        else failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    /* Details after the table, '#'-prefixed. */
    for (int i = 0; i < n_types; i++) {
        const pbd_gradcheck_result *r = &res[i];
        printf("# %s: checked %d/%d regular samples (%d skipped as degenerate, %d non-finite, "
               "%d invalid); Taylor remainder at rounding level in %d; momentum error %.3g%s\n",
               r->type->name, r->checked, r->samples, r->skipped, r->nonfinite, r->invalid,
               r->taylor_exact, r->momentum_err, r->type->internal ? "" : " (not internal)");
        printf("# %s: degenerate batch %d samples: %d skipped by eval (PBD_EVAL_DEGENERATE), "
               "%d non-finite; FD max_rel_err where eval said OK %.3g (not in the table)\n",
               r->type->name, r->degenerate_samples, r->degenerate_skipped,
               r->degenerate_nonfinite, r->degenerate_max_rel_err);
    }
    if (!only || only == &pbd_bend_dihedral_type) {
        pbd_bend_variants_result v;
        if (pbd_bend_variants(&opt, &v) == PBD_OK) {
            printf("# bend_dihedral variants, one step (k=1, w in [0.1,10]) on %d hinges (%d "
                   "skipped): linearized residual |C+gradC.dp|/|C| (PBD Eq. 3)\n",
                   v.samples, v.skipped);
            printf("#   Eq. 28:        median %.3g  max %.3g\n", v.eq28_linearized.median,
                   v.eq28_linearized.max);
            printf("#   slides' step:  median %.3g  min %.3g  max %.3g\n",
                   v.slides_linearized.median, v.slides_linearized.min, v.slides_linearized.max);
            printf("# bend_dihedral variants: |C(p+dp)|/|C(p)| after the step: Eq. 28 median "
                   "%.3g max %.3g; slides' step median %.3g max %.3g\n",
                   v.eq28_step_ratio.median, v.eq28_step_ratio.max, v.slides_step_ratio.median,
                   v.slides_step_ratio.max);
        } else {
            fprintf(stderr, "pbd-gradcheck: %s\n", pbd_last_error());
            status = 1;
        }
    }
    printf("# seed=%d degenerate_samples=%d; FD step h = cbrt(eps)*L; thresholds: max_rel_err <= "
           "%g, taylor_order >= %g, momentum <= %g\n",
           seed, opt.degenerate_samples, opt.max_rel_err, opt.min_taylor_order, opt.momentum_tol);
    if (!no_output && n_types > 0) {
        pbd_status st = pbd_gradcheck_write_h5(output, &opt, res, n_types);
        if (st != PBD_OK) {
            fprintf(stderr, "pbd-gradcheck: %s\n", pbd_last_error());
            status = pbd_exit_status(st);
        } else {
            printf("# wrote %s\n", output);
        }
    }
    for (int i = 0; i < n_types; i++) pbd_gradcheck_result_free(&res[i]);
    free(res);
    if (failed && !status) status = 1;
    return status;
}
