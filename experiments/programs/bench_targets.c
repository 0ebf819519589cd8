/* The targets' lines of the performance table (experiments/programs/README.md), computed from
 * the rows of one run: ratios within the run, never against numbers from elsewhere. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const bench_row *find(const bench_row *rows, int n, const char *scene, const char *solver)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].scene, scene) == 0 && strcmp(rows[i].solver, solver) == 0)
            return &rows[i];
    return NULL;
}

#define MET(ok) ((ok) ? "met" : "NOT met")

/* The bending cloth: coloured GS against the bending yardstick and N threads against one,
 * medians over the run's steps (the flat cloth's first steps skip every hinge and cost a
 * third of a draped one). */
static int bend_targets(const bench_row *rows, int n, int threads, int quick, char out[][256])
{
    const char *scene = quick ? "cloth32-bend" : "cloth100-bend";
    char col_t[32], busy_t[32];
    snprintf(col_t, sizeof col_t, "colour-%dt", threads);
    snprintf(busy_t, sizeof busy_t, "colour-%dt-busy", threads);
    const bench_row *base = find(rows, n, scene, "baseline"), *c1 = find(rows, n, scene, "colour-1t"),
                    *ct = find(rows, n, scene, col_t), *b1 = find(rows, n, scene, "colour-1t-busy"),
                    *bt = find(rows, n, scene, busy_t);
    int k = 0;
    if (base && c1 && ct) {
        double r1 = base->ms_median / c1->ms_median, rt = base->ms_median / ct->ms_median;
        double st = ct->max_stretch / base->max_stretch;
        int width = pbd_simd_width(); /* this process's: the rows' kernels ran at it */
        snprintf(out[k++], 256, "bending cloth %s, %s %d lanes, coloured GS + kernels / the bending "
                 "yardstick (medians): %.2fx on 1 thread (target >= 5): %s; %.2fx on %d threads "
                 "(target >= 10): %s; edge stretch %.3g vs %.3g (target within 5%%): %s", scene,
                 pbd_simd_isa(width), width, r1, MET(r1 >= 5.0), rt, threads, MET(rt >= 10.0),
                 ct->max_stretch, base->max_stretch, MET(fabs(st - 1.0) <= 0.05));
    }
    if (c1 && ct) /* the second thread's gain (its target on the 100² cloth only) */
        snprintf(out[k++], 256, "coloured GS, %s: %d threads %.2fx faster than 1 (medians; "
                 "%.2fx by the minima)%s%s", scene, threads, c1->ms_median / ct->ms_median,
                 c1->ms_min / ct->ms_min, quick ? "" : " (target >= 1.8): ",
                 quick ? "" : MET(c1->ms_median / ct->ms_median >= 1.8));
    if (b1 && bt)
        snprintf(out[k++], 256, "with a competing busy process, %s: %d threads %.2f ms, 1 thread "
                 "%.2f ms per step (medians, target: %d threads never slower): %s", scene, threads,
                 bt->ms_median, b1->ms_median, threads, MET(bt->ms_median <= b1->ms_median));
    return k;
}

/* The solver families against coloured XPBD on the same scene, threads and iterations
 * (medians of the same run, so the ratio of steps is the ratio of iterations): VBD <= 3x and
 * AVBD <= 3.5x on the bending cloth, 2 threads >= 1.7x faster than 1; PD <= 3x on the 64²
 * spring cloth; the other pairs' ratios without a target. The families' 1- and N-thread steps
 * give the same bits. */
static int family_targets(const bench_row *rows, int n, int threads, int quick, char out[][256])
{
    const char *scenes[3] = {quick ? "cloth32-bend-families" : "cloth100-bend-families",
                             quick ? "cloth100-families" : "cloth64-families",
                             quick ? "" : "cloth316-families"};
    const char *methods[3] = {"vbd", "avbd", "pd"};
    /* limit[scene][method]; 0: no target (the quick scenes are smaller than the targets') */
    const double limit[3][3] = {{quick ? 0.0 : 3.0, quick ? 0.0 : 3.5, 0.0},
                                {0.0, 0.0, quick ? 0.0 : 3.0},
                                {0.0, 0.0, 0.0}};
    int k = 0;
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 3; m++) {
            char name1[32], namet[32], x1[32], xt[32];
            snprintf(name1, sizeof name1, "%s-1t", methods[m]);
            snprintf(namet, sizeof namet, "%s-%dt", methods[m], threads);
            snprintf(x1, sizeof x1, "colour-1t-xpbd");
            snprintf(xt, sizeof xt, "colour-%dt-xpbd", threads);
            const bench_row *f1 = find(rows, n, scenes[s], name1), *ft = find(rows, n, scenes[s], namet),
                            *c1 = find(rows, n, scenes[s], x1), *ct = find(rows, n, scenes[s], xt);
            if (!f1 || !ft || !c1 || !ct) continue;
            double r1 = f1->ms_median / c1->ms_median, rt = ft->ms_median / ct->ms_median;
            double up = f1->ms_median / ft->ms_median, lim = limit[s][m];
            char goal1[48] = "", goalt[48] = "", goalu[48] = "";
            if (lim > 0.0) {
                snprintf(goal1, sizeof goal1, " (<= %.1f: %s)", lim, MET(r1 <= lim));
                snprintf(goalt, sizeof goalt, " (<= %.1f: %s)", lim, MET(rt <= lim));
                if (m < 2) snprintf(goalu, sizeof goalu, " (>= 1.7: %s)", MET(up >= 1.7));
            }
            snprintf(out[k++], 256, "%s iteration / coloured XPBD's, %s (medians): 1t %.2fx%s, %dt "
                     "%.2fx%s; %dt speed-up %.2fx%s; 1t = %dt bits: %s", methods[m], scenes[s], r1,
                     goal1, threads, rt, goalt, threads, up, goalu, threads,
                     f1->checksum == ft->checksum ? "yes" : "NO");
        }
    return k;
}

int bench_targets(const bench_row *rows, int n, int threads, int quick, char out[][256])
{
    const char *cloth = quick ? "cloth100" : "cloth316";
    char col_t[32], col_t_x[32];
    snprintf(col_t, sizeof col_t, "colour-%dt", threads);
    snprintf(col_t_x, sizeof col_t_x, "colour-%dt-xpbd", threads);
    int k = bend_targets(rows, n, threads, quick, out);
    k += family_targets(rows, n, threads, quick, out + k);
    const bench_row *base = find(rows, n, cloth, "baseline"), *gs = find(rows, n, cloth, "gs"),
                    *gen = find(rows, n, cloth, "gs-generic"), *col = find(rows, n, cloth, col_t),
                    *gsx = find(rows, n, cloth, "gs-xpbd"), *colx = find(rows, n, cloth, col_t_x);
    if (base && gs && gen) {
        double a = gs->ms_min / base->ms_min, g = gen->ms_min / base->ms_min;
        snprintf(out[k++], 256, "serial GS time / baseline on %s: %.2f with kernels, %.2f generic "
                 "eval (target <= 1.25): %s with kernels, %s generic", cloth, a, g, MET(a <= 1.25),
                 MET(g <= 1.25));
    }
    if (base && col)
        snprintf(out[k++], 256, "distance-only %s, coloured GS + kernels, %d threads: %.0f M "
                 "projections/s (target >= 400): %s; %.2fx the yardstick (target >= 7): %s",
                 cloth, threads, col->mproj_per_s, MET(col->mproj_per_s >= 400.0),
                 col->x_baseline, MET(col->x_baseline >= 7.0));
    if (gs && gsx)
        snprintf(out[k++], 256, "XPBD / PBD time per projection on %s: serial GS %.3f (target <= "
                 "1.03): %s; coloured %dt %.3f (target <= 1.03): %s", cloth, gsx->ms_min / gs->ms_min,
                 MET(gsx->ms_min / gs->ms_min <= 1.03), threads,
                 col && colx ? colx->ms_min / col->ms_min : NAN,
                 MET(col && colx && colx->ms_min / col->ms_min <= 1.03));
    const char *sizes[] = {"cloth32", "cloth100", "cloth316", "cloth1000"};
    for (int v = 0; v < 3; v++) {
        const char *solver = v == 2 ? col_t : v ? "colour-1t" : "gs";
        double lo = INFINITY, hi = 0.0;
        int found = 0;
        char list[128] = "";
        for (int i = 0; i < 4; i++) {
            const bench_row *r = find(rows, n, sizes[i], solver);
            if (!r) continue;
            found++;
            lo = fmin(lo, r->ns_per_particle_step);
            hi = fmax(hi, r->ns_per_particle_step);
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%.0f", len ? "/" : "", r->ns_per_particle_step);
        }
        if (found >= 2)
            snprintf(out[k++], 256, "time per particle-step, %s, cloth 32^2..1000^2: %s ns, "
                     "max/min %.2f (target <= 1.5): %s", solver, list, hi / lo, MET(hi / lo <= 1.5));
    }
    if (col)
        snprintf(out[k++], 256, "memory, %s, %s: %.0f bytes per particle (target <= 256): %s",
                 cloth, col_t, col->bytes_per_particle, MET(col->bytes_per_particle <= 256.0));
    /* determinism: every scene's 1- and N-thread coloured rows, with and without a competitor */
    int same = 0, pairs = 0;
    for (int i = 0; i < n; i++) {
        if (strncmp(rows[i].solver, "colour-", 7) != 0 || rows[i].threads == 1 ||
            strstr(rows[i].solver, "unsorted") || strstr(rows[i].solver, "xpbd"))
            continue;
        const bench_row *one = find(rows, n, rows[i].scene, "colour-1t");
        if (!one) continue;
        pairs++;
        same += one->checksum == rows[i].checksum;
    }
    if (pairs)
        snprintf(out[k++], 256, "coloured GS, 1 vs %d threads: %d of %d rows bit-identical "
                 "(target: all): %s", threads, same, pairs, MET(same == pairs));
    /* the yardstick and the registry's GS do the same arithmetic in the same order */
    int eq = 0, both = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(rows[i].solver, "baseline") != 0 || strstr(rows[i].scene, "-bend")) continue;
        const bench_row *g = find(rows, n, rows[i].scene, "gs");
        if (!g || g->constraints != rows[i].constraints) continue; /* distance-only scenes */
        both++;
        eq += g->checksum == rows[i].checksum;
    }
    if (both)
        snprintf(out[k++], 256, "check: serial GS with kernels reproduces the baseline's positions "
                 "bit for bit on %d of %d distance-only scenes", eq, both);
    return k;
}
