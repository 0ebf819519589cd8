/* pbd-bench: the performance table (experiments/programs/README.md "Performance").
 *
 * Each scene is stepped by several solver configurations and by the yardstick: a plain,
 * hand-written serial Gauss–Seidel step over the scene's distance constraints (below, the
 * obvious code: flat arrays, PBD Eq. 10/11, no registry). All configurations of a scene
 * run in one process, interleaved repetition by repetition, so that a load that comes and
 * goes hits them alike. Per step, wall clock, with the measure stage off
 * (def.measure_every = 0): the table measures the solver. */
#include "bench.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PBD_BENCH_FLAGS
#define PBD_BENCH_FLAGS "unknown"
#endif

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t checksum(const double *a, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *b = (const unsigned char *)a;
    for (size_t i = 0; i < n * sizeof(double); i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* ---- configurations and scenes ------------------------------------------------------ */

typedef struct config {
    const char *name;
    int baseline, scheme, method, kernels, parallel, sort;
    int busy; /* timed while a competing process keeps one CPU busy */
} config;

/* the targets' lines: bench_targets' 25 and the Newton reference's */
#define BENCH_MAX_TARGETS 40

enum {
    C_BASE, C_GENERIC, C_GS, C_GS_XPBD, C_COL1, C_COLT, C_COLT_UNSORTED, C_COLT_XPBD,
    C_COL1_BUSY, C_COLT_BUSY, C_VBD1, C_VBDT, C_AVBD1, C_AVBDT, C_PD1, C_PDT, C_COL1_XPBD,
    C_COUNT
};
static const config configs[C_COUNT] = {
    [C_BASE] = {"baseline", 1, 0, 0, 0, 0, 0, 0},
    [C_GENERIC] = {"gs-generic", 0, PBD_SCHEME_GAUSS_SEIDEL, PBD_METHOD_PBD, 0, 0, 0, 0},
    [C_GS] = {"gs", 0, PBD_SCHEME_GAUSS_SEIDEL, PBD_METHOD_PBD, 1, 0, 0, 0},
    [C_GS_XPBD] = {"gs-xpbd", 0, PBD_SCHEME_GAUSS_SEIDEL, PBD_METHOD_XPBD, 1, 0, 0, 0},
    [C_COL1] = {"colour-1t", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_PBD, 1, 0, 1, 0},
    [C_COLT] = {"colour-Nt", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_PBD, 1, 1, 1, 0},
    [C_COLT_UNSORTED] = {"colour-Nt-unsorted", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_PBD, 1, 1, 0, 0},
    [C_COLT_XPBD] = {"colour-Nt-xpbd", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_XPBD, 1, 1, 1, 0},
    [C_COL1_BUSY] = {"colour-1t-busy", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_PBD, 1, 0, 1, 1},
    [C_COLT_BUSY] = {"colour-Nt-busy", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_PBD, 1, 1, 1, 1},
    /* the solver families (solver/README.md "Solver families"): the scene's
     * constraints with compliance 1e-6 where they have none (VBD and PD need an energy) */
    [C_VBD1] = {"vbd-1t", 0, 0, PBD_METHOD_VBD, 1, 0, 0, 0},
    [C_VBDT] = {"vbd-Nt", 0, 0, PBD_METHOD_VBD, 1, 1, 0, 0},
    [C_AVBD1] = {"avbd-1t", 0, 0, PBD_METHOD_AVBD, 1, 0, 0, 0},
    [C_AVBDT] = {"avbd-Nt", 0, 0, PBD_METHOD_AVBD, 1, 1, 0, 0},
    [C_PD1] = {"pd-1t", 0, 0, PBD_METHOD_PD, 1, 0, 0, 0},
    [C_PDT] = {"pd-Nt", 0, 0, PBD_METHOD_PD, 1, 1, 0, 0},
    /* the families' yardstick: coloured XPBD with kernels on the same constraints */
    [C_COL1_XPBD] = {"colour-1t-xpbd", 0, PBD_SCHEME_COLORED_GS, PBD_METHOD_XPBD, 1, 0, 1, 0},
};
#define BIT(c) (1u << (c))
#define VBD_ROWS (BIT(C_VBD1) | BIT(C_VBDT) | BIT(C_AVBD1) | BIT(C_AVBDT))
#define PD_ROWS (BIT(C_PD1) | BIT(C_PDT))
/* the families beside coloured XPBD at 1 and N threads (bench_targets.c: the ratios) */
#define FAMILIES (VBD_ROWS | BIT(C_COL1_XPBD) | BIT(C_COLT_XPBD))
#define FAMILIES_PD (FAMILIES | PD_ROWS)
#define ALL_CONFIGS (((1u << C_COUNT) - 1) & ~(BIT(C_COL1_BUSY) | BIT(C_COLT_BUSY) | VBD_ROWS | \
                                               PD_ROWS | BIT(C_COL1_XPBD)))

enum { S_CLOTH, S_CLOTH_DIHEDRAL, S_TET_BEAM, S_CHAIN, S_CLOTH_SHUFFLED, S_CLOTH_RENUMBERED,
       S_CLOTH_BEND };
/* total_steps > 0: the scene runs that many steps from its start, no warm-up, split over the
 * rounds (the draped cloth costs more than the flat one: every row sees the same phases) */
typedef struct scene_spec {
    const char *name;
    int kind, size, iterations;
    int steps_per_rep, warmup;
    unsigned configs;
    int total_steps;
} scene_spec;

#define FAST (BIT(C_BASE) | BIT(C_GS) | BIT(C_COL1) | BIT(C_COLT))
#define BEND (FAST | BIT(C_COL1_BUSY) | BIT(C_COLT_BUSY))
static const scene_spec full_scenes[] = {
    {"cloth100-bend", S_CLOTH_BEND, 100, 10, 0, 0, BEND, 300},
    {"cloth100-bend-families", S_CLOTH_BEND, 100, 10, 0, 0, FAMILIES, 30},
    {"cloth64-families", S_CLOTH, 64, 10, 5, 2, FAMILIES_PD, 0},
    {"cloth316-families", S_CLOTH, 316, 10, 1, 1, FAMILIES_PD, 0},
    {"cloth100-dihedral", S_CLOTH_DIHEDRAL, 100, 10, 5, 3, ALL_CONFIGS & ~BIT(C_COLT_UNSORTED), 0},
    {"cloth316", S_CLOTH, 316, 10, 4, 2, ALL_CONFIGS, 0},
    {"cloth1000", S_CLOTH, 1000, 10, 1, 1, FAST | BIT(C_GS_XPBD) | BIT(C_COLT_XPBD), 0},
    {"tet-beam", S_TET_BEAM, 40, 10, 10, 2, FAST | BIT(C_GENERIC) | BIT(C_COLT_XPBD), 0},
    {"chain", S_CHAIN, 1000, 10, 100, 10, FAST | BIT(C_GS_XPBD), 0},
    {"cloth32", S_CLOTH, 32, 10, 200, 20, FAST | BIT(C_GS_XPBD) | BIT(C_COLT_XPBD), 0},
    {"cloth316-shuffled", S_CLOTH_SHUFFLED, 316, 10, 4, 2, FAST, 0},
    {"cloth316-renumbered", S_CLOTH_RENUMBERED, 316, 10, 4, 2, FAST, 0},
};
static const scene_spec quick_scenes[] = {
    {"cloth32-bend", S_CLOTH_BEND, 32, 10, 0, 0, BEND, 60},
    {"cloth32-bend-families", S_CLOTH_BEND, 32, 10, 0, 0, FAMILIES, 10},
    {"cloth100-families", S_CLOTH, 100, 10, 2, 1, FAMILIES_PD, 0},
    {"cloth32-dihedral", S_CLOTH_DIHEDRAL, 32, 10, 20, 2, ALL_CONFIGS & ~BIT(C_COLT_UNSORTED), 0},
    {"cloth100", S_CLOTH, 100, 10, 3, 1, ALL_CONFIGS, 0},
    {"tet-beam", S_TET_BEAM, 8, 10, 5, 1, FAST | BIT(C_GENERIC), 0},
    {"chain", S_CHAIN, 2000, 10, 20, 1, FAST, 0},
};

/* The cloth with its particles numbered at random (the same particles, constraints in the
 * same order, the same two corners attached): a scene without memory locality. */
static pbd_world *shuffled(pbd_world *o)
{
    int n = o->n;
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    pbd_world *w = perm ? pbd_world_create(n) : NULL;
    if (w) {
        for (int i = 0; i < n; i++) perm[i] = i;
        pbd_rng g;
        pbd_rng_seed(&g, 2024);
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(pbd_rng_next(&g) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        w->def = o->def;
        for (int i = 0; i < n; i++)
            pbd_world_set_particle(w, perm[i], o->x + 3 * i, NULL, o->w[i] > 0.0 ? 1.0 / o->w[i] : 0.0);
        const pbd_constraint_set *s = &o->sets[0];
        int set = pbd_world_add_set(w, s->type, 0);
        for (int c = 0; c < s->count; c++) {
            int32_t idx[2] = {perm[s->idx[2 * c]], perm[s->idx[2 * c + 1]]};
            pbd_set_add(w, set, idx, s->rest + c, s->stiffness[c], s->compliance[c]);
        }
        for (int a = 0; a < o->n_attach; a++) pbd_world_attach(w, perm[o->attach_idx[a]]);
    }
    free(perm);
    pbd_world_free(o);
    return w;
}

static pbd_world *build(const scene_spec *sc)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.compliance = 1e-7; /* m/N; only the XPBD rows use it */
    sp.bend_compliance = 1e-4;
    sp.resolution = sc->size;
    switch (sc->kind) {
    case S_CLOTH:
        return pbd_scene_cloth(&sp);
    case S_CLOTH_DIHEDRAL: /* laid flat, it drapes from two corners and its hinges fold */
        return pbd_scene_cloth_bend(&sp);
    case S_CLOTH_BEND: /* the bending cloth: 10 m × 10 m, 1 kg per particle, union-jack
                        * diagonals, k = 1, k_bend = 0.01, pinned at vertices 0 and size-1 */
        sp.size = 10.0;
        sp.total_mass = (double)sc->size * sc->size;
        sp.diagonal = PBD_DIAGONAL_UNION_JACK;
        sp.stiffness = 1.0;
        sp.k_bend = 0.01;
        return pbd_scene_cloth_bend(&sp);
    case S_TET_BEAM: /* size × size/4 × size/4 cubes, 6 tets each, 1 m long */
        sp.total_mass = 5.0;
        return pbd_scene_tet_beam(&sp);
    case S_CLOTH_SHUFFLED:
        return shuffled(pbd_scene_cloth(&sp));
    case S_CLOTH_RENUMBERED: { /* shuffled, then renumbered along a Morton curve */
        pbd_world *w = shuffled(pbd_scene_cloth(&sp));
        if (w && pbd_world_reorder(w, 1) != PBD_OK) {
            pbd_world_free(w);
            w = NULL;
        }
        return w;
    }
    default:
        return pbd_scene_chain(&sp);
    }
}

static double max_stretch(pbd_world *w)
{
    double worst = 0.0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (set->type != &pbd_distance_type) continue;
        for (int c = 0; c < set->count; c++) {
            double x[6], C;
            for (int j = 0; j < 2; j++) memcpy(x + 3 * j, w->x + 3 * set->idx[2 * c + j], 24);
            pbd_eval_input in = {x, 2, set->rest + c, NULL, 0};
            set->type->eval(&in, &C, NULL);
            worst = fmax(worst, fabs(C) / set->rest[c]);
        }
    }
    return worst;
}

/* ---- one scene ---------------------------------------------------------------------- */

typedef struct runner {
    const config *cfg;
    pbd_world *w;
    baseline *b;
    double *times; /* seconds, every timed step */
} runner;

/* A competing process: a child that keeps one CPU busy until it is killed. */
static pid_t start_busy(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        volatile unsigned long spin = 0;
        for (;;) spin++;
    }
    return pid;
}

static void stop_busy(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Steps `steps` times, timing each step into t (may be NULL); returns 0, or -1 on a
 * solver error. */
static int time_steps(runner *r, int steps, double *t)
{
    pid_t busy = t && r->cfg->busy ? start_busy() : -1;
    if (busy > 0) nanosleep(&(struct timespec){0, 20000000}, NULL); /* let it get going */
    for (int s = 0; s < steps; s++) {
        double t0 = now_seconds();
        if (r->b) {
            if (r->b->mh > 0) baseline_bend_step(r->b);
            else baseline_step(r->b);
        } else if (pbd_step(r->w) != PBD_OK) {
            stop_busy(busy);
            fprintf(stderr, "pbd-bench: %s\n", pbd_last_error());
            return -1;
        }
        if (t) t[s] = now_seconds() - t0;
    }
    stop_busy(busy);
    return 0;
}

static int run_scene(const scene_spec *sc, int reps, int threads, bench_row *rows, int *n_rows)
{
    runner run[C_COUNT];
    int n = 0, samples = sc->total_steps > 0 ? sc->total_steps : reps * sc->steps_per_rep;
    double load0 = bench_load_average();
    for (int c = 0; c < C_COUNT; c++) {
        if (!(sc->configs & BIT(c))) continue;
        runner *r = &run[n];
        memset(r, 0, sizeof *r);
        r->cfg = &configs[c];
        r->w = build(sc);
        r->times = calloc((size_t)samples, sizeof *r->times);
        if (!r->w || !r->times) {
            fprintf(stderr, "pbd-bench: cannot build %s: %s\n", sc->name, pbd_last_error());
            return -1;
        }
        pbd_solver_def *d = &r->w->def;
        d->iterations = sc->iterations;
        d->measure_every = 0; /* the table measures the solver, not the measure stage */
        d->scheme = r->cfg->scheme;
        d->method = r->cfg->method;
        d->kernels = r->cfg->kernels;
        d->threads = r->cfg->parallel ? threads : 1;
        d->sort_by_colour = r->cfg->sort;
        for (int st = 0; d->method >= PBD_METHOD_VBD && st < r->w->n_sets; st++)
            for (int c = 0; c < r->w->sets[st].count; c++)
                if (r->w->sets[st].compliance[c] == 0.0) r->w->sets[st].compliance[c] = 1e-6;
        if (r->cfg->baseline) {
            r->b = sc->kind == S_CLOTH_BEND ? baseline_bend_of(r->w) : baseline_of(r->w);
            if (!r->b) return -1;
        }
        n++;
    }
    for (int i = 0; i < n; i++) { /* warm-up: colouring, sorting, caches */
        if (time_steps(&run[i], sc->warmup, NULL) < 0) return -1;
        if (!run[i].b) pbd_world_compact(run[i].w);
    }
    for (int rep = 0; rep < reps; rep++) {
        int lo = (int)((long)samples * rep / reps), hi = (int)((long)samples * (rep + 1) / reps);
        for (int i = 0; i < n; i++) /* interleaved: a passing load hits every row alike */
            if (time_steps(&run[i], hi - lo, run[i].times + lo) < 0) return -1;
    }
    double load1 = bench_load_average();
    double base_rate = 0.0;
    for (int i = 0; i < n; i++) {
        runner *r = &run[i];
        bench_row *row = &rows[(*n_rows)++];
        memset(row, 0, sizeof *row);
        snprintf(row->scene, sizeof row->scene, "%s", sc->name);
        snprintf(row->solver, sizeof row->solver, "%s", r->cfg->name);
        char *nt = strstr(row->solver, "Nt");
        if (nt) *nt = (char)('0' + (threads < 10 ? threads : 9));
        qsort(r->times, (size_t)samples, sizeof *r->times, bench_cmp_double);
        double t_min = r->times[0], t_med = r->times[samples / 2];
        pbd_world *w = r->w;
        long projections = 0;
        int constraints = 0;
        if (r->b) {
            constraints = r->b->m + r->b->mh;
            projections = (long)(r->b->m + r->b->mh) * r->b->iterations;
        } else {
            for (int s = 0; s < w->n_sets; s++) constraints += w->sets[s].count;
            projections = (long)constraints * w->def.iterations * w->def.substeps;
        }
        row->particles = w->n;
        row->constraints = constraints;
        row->iterations = sc->iterations;
        row->threads = r->cfg->parallel ? threads : 1;
        row->steps_timed = samples;
        row->projections_per_step = projections;
        row->ms_min = 1e3 * t_min;
        row->ms_median = 1e3 * t_med;
        row->ns_per_projection = 1e9 * t_min / (double)projections;
        row->mproj_per_s = (double)projections / t_min / 1e6;
        row->ns_per_particle_step = 1e9 * t_min / w->n;
        row->bytes_per_particle =
            (double)(r->b ? baseline_bytes(r->b) : pbd_world_bytes(w)) / w->n;
        row->max_stretch = r->b ? baseline_stretch(r->b) : max_stretch(w);
        row->checksum = checksum(r->b ? r->b->x : w->x, 3 * (size_t)w->n);
        row->load_before = load0;
        row->load_after = load1;
        if (r->b) base_rate = row->mproj_per_s;
        row->x_baseline = base_rate > 0.0 ? row->mproj_per_s / base_rate : NAN;
        baseline_free(r->b);
        pbd_world_free(w);
        free(r->times);
    }
    return n;
}

/* ---- output ------------------------------------------------------------------------- */

static void print_header(void)
{
    printf("%-18s %-20s %8s %8s %9s %9s %8s %8s %7s %9s %7s\n", "scene", "solver", "particles",
           "constr", "ms/step", "(median)", "ns/proj", "Mproj/s", "B/part", "stretch", "x_base");
}

static void print_row(const bench_row *r)
{
    printf("%-18s %-20s %8d %8d %9.3f %9.3f %8.2f %8.1f %7.0f %9.2e %7.2f\n", r->scene,
           r->solver, r->particles, r->constraints, r->ms_min, r->ms_median,
           r->ns_per_projection, r->mproj_per_s, r->bytes_per_particle, r->max_stretch,
           r->x_baseline);
}

static void machine_info(bench_machine *m, int reps, int quick, int threads)
{
    memset(m, 0, sizeof *m);
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = '\0';
                snprintf(m->cpu, sizeof m->cpu, "%s", c);
            }
            break;
        }
    if (f) fclose(f);
    m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __VERSION__
    snprintf(m->compiler, sizeof m->compiler, "cc %s", __VERSION__);
#endif
    /* the flags and revision the linked objects were built from (Makefile flags.stamp,
     * scripts/git-revision.sh), not the tree as it is now */
    snprintf(m->flags, sizeof m->flags, "%s", pbd_build_cflags());
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(m->revision, sizeof m->revision, "%s", pbd_build_revision());
    snprintf(m->blas, sizeof m->blas, "%s", pbd_blas_name());
    m->blas_threads = pbd_blas_threads();
    m->simd_width = pbd_simd_width();
    snprintf(m->simd_isa, sizeof m->simd_isa, "%s", pbd_simd_isa(m->simd_width));
    m->reps = reps;
    m->quick = quick;
    m->threads = threads;
}

int main(int argc, char **argv)
{
    int quick = 0, reps = 0, threads = 2, simd_width = 0, exact = 0;
    const char *output = "data/results/bench", *only = NULL, *history = NULL;
    char scene_help[1024] = "only scenes whose name contains this (a comma-separated list: any "
                            "of these); full:"; /* the names */
    for (size_t i = 0; i < sizeof full_scenes / sizeof *full_scenes; i++) {
        strncat(scene_help, " ", sizeof scene_help - strlen(scene_help) - 1);
        strncat(scene_help, full_scenes[i].name, sizeof scene_help - strlen(scene_help) - 1);
    }
    strncat(scene_help, "; --quick:", sizeof scene_help - strlen(scene_help) - 1);
    for (size_t i = 0; i < sizeof quick_scenes / sizeof *quick_scenes; i++) {
        strncat(scene_help, " ", sizeof scene_help - strlen(scene_help) - 1);
        strncat(scene_help, quick_scenes[i].name, sizeof scene_help - strlen(scene_help) - 1);
    }
    const cli_option opts[] = {
        {"quick", CLI_FLAG, &quick, 0, 0, 0, "small scenes, 2 repetitions: a smoke run", NULL},
        {"reps", CLI_INT, &reps, 0, 1000, 0, "interleaved rounds per scene (0: 7, or 2 with --quick)",
         NULL},
        {"threads", CLI_INT, &threads, 1, 64, 0, "threads of the parallel rows", NULL},
        {"output", CLI_STRING, &output, 0, 0, 0, "writes OUTPUT.csv and OUTPUT.h5", NULL},
        {"history", CLI_STRING, &history, 0, 0, 0,
         "also appends each row's ms per step (min, median) to this CSV of measurements "
         "(make bench: data/measurements/bench.csv)", NULL},
        {"scene", CLI_STRING, &only, 0, 0, 0, scene_help, NULL},
        {"exact", CLI_FLAG, &exact, 0, 0, 0, "--scene's names are whole scene names, not parts",
         NULL},
        {"simd-width", CLI_INT, &simd_width, 0, 8, 0,
         "cap the SIMD colour kernels' lanes: 2 (SSE2), 4 (AVX2), 8 (AVX-512); 0: PBD_SIMD_WIDTH, "
         "else the widest the CPU has", NULL},
    };
    int np = 0;
    int rc = cli_parse("pbd-bench", "pbd-bench [options]", argc, argv, 1, opts,
                       (int)(sizeof opts / sizeof opts[0]), NULL, 0, &np);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (simd_width != 0 && simd_width != 2 && simd_width != 4 && simd_width != 8) {
        fprintf(stderr, "pbd-bench: --simd-width: expected 2, 4 or 8, found %d\n", simd_width);
        return 2;
    }
    if (simd_width) { /* before any kernel runs: the library reads it once */
        char v[2] = {(char)('0' + simd_width), '\0'};
        setenv("PBD_SIMD_WIDTH", v, 1);
    }
    if (pbd_simd_width_forced() < 0) {
        fprintf(stderr, "pbd-bench: PBD_SIMD_WIDTH: expected 2, 4 or 8, found '%s'\n",
                getenv("PBD_SIMD_WIDTH"));
        return 2;
    }
    bench_only_exact = exact;
    pbd_interrupt_install_cleanup(); /* SIGINT/SIGTERM: no OUTPUT.partial-<pid> left behind */
    if (reps == 0) reps = quick ? 2 : 7;
    const scene_spec *scenes = quick ? quick_scenes : full_scenes;
    int n_scenes = quick ? (int)(sizeof quick_scenes / sizeof *quick_scenes)
                         : (int)(sizeof full_scenes / sizeof *full_scenes);
    bench_machine m;
    machine_info(&m, reps, quick, threads);
    printf("# pbd-bench: %s, %d cores, %s, flags %s, revision %s\n", m.cpu, m.cores, m.compiler,
           m.flags, m.revision);
    printf("# SIMD colour kernels: %s, %d lanes%s\n", m.simd_isa, m.simd_width,
           pbd_simd_width_forced() > 0 ? " (capped by PBD_SIMD_WIDTH / --simd-width)" : "");
    printf("# BLAS (the Newton rows' factorisations): %s, %d threads\n", m.blas, m.blas_threads);
    printf("# wall clock per step, measure stage off; min (and median) over every timed step of %d "
           "interleaved rounds; derived columns from the min; x_base = Mproj/s / the baseline's\n",
           reps);
    print_header();
    bench_row *rows = calloc((size_t)n_scenes * C_COUNT + 8 + BENCH_FLUID_ROWS, sizeof *rows);
    int n_rows = 0;
    for (int s = 0; s < n_scenes; s++) {
        if (!bench_selected(scenes[s].name, only)) continue;
        int first = n_rows;
        if (run_scene(&scenes[s], reps, threads, rows, &n_rows) < 0) return 1;
        for (int i = first; i < n_rows; i++) print_row(&rows[i]);
        printf("# load average %.2f -> %.2f\n", rows[first].load_before, rows[first].load_after);
        fflush(stdout);
    }
    char lines[BENCH_MAX_TARGETS][256] = {{0}};
    int n_targets = bench_targets(rows, n_rows, threads, quick, lines);
    printf("# the Newton reference: one implicit step to the relative tolerance 1e-10 (min of "
           "the timed steps), memory it holds\n");
    if (bench_newton(quick, only, rows, &n_rows, lines, &n_targets) < 0) return 1;
    printf("# Position Based Fluids: dam break at 4 iterations, the step, the neighbour search "
           "and the projection timed apart (min and median of %d steps)\n", 6);
    if (bench_fluid(quick, only, rows, &n_rows) < 0) return 1;
    const char *tp[BENCH_MAX_TARGETS];
    printf("# targets%s:\n", quick ? " (quick run: small scenes, indicative only)" : "");
    for (int i = 0; i < n_targets; i++) {
        printf("#   %s\n", lines[i]);
        tp[i] = lines[i];
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.csv", output);
    pbd_status st = bench_write_csv(path, rows, n_rows, &m);
    if (st == PBD_OK) {
        snprintf(path, sizeof path, "%s.h5", output);
        st = bench_write_h5(path, rows, n_rows, &m, tp, n_targets);
    }
    if (st == PBD_OK && history) st = bench_append_history(history, rows, n_rows, &m);
    if (st != PBD_OK) {
        fprintf(stderr, "pbd-bench: %s\n", pbd_last_error());
        return 3;
    }
    printf("# wrote %s.csv and %s.h5%s%s\n", output, output, history ? "; appended to " : "",
           history ? history : "");
    free(rows);
    return 0;
}
