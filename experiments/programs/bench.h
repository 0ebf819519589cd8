/* Private to experiments/: the performance table's rows and their output files
 * (pbd_bench.c, bench_output.c, bench_yardstick.c; experiments/programs/README.md). */
#ifndef PBD_BENCH_H
#define PBD_BENCH_H

#include "experiments/pbd_experiments.h"

#include <stdint.h>

/* One line of the table: a scene stepped by one solver configuration. Times are wall
 * clock per step with the measure stage off; the derived columns use the minimum. */
typedef struct bench_row {
    char scene[40], solver[40];
    int particles, constraints, iterations, threads, steps_timed;
    long projections_per_step;   /* constraints × iterations × substeps */
    double ms_min, ms_median;    /* per step, over the repetitions */
    double ns_per_projection;    /* ms_min / projections_per_step */
    double mproj_per_s;          /* millions of projections per second */
    double ns_per_particle_step; /* ms_min / particles */
    double bytes_per_particle;   /* pbd_world_bytes / particles (the baseline: its arrays) */
    double max_stretch;          /* max over distance constraints of |len - d|/d at the end */
    double x_baseline;           /* mproj_per_s / the baseline's on the same scene */
    uint64_t checksum;           /* FNV-1a of the final positions */
    double load_before, load_after; /* 1-minute load average around the scene */
} bench_row;

/* Where and how the table was measured. */
typedef struct bench_machine {
    char cpu[128], compiler[128], flags[256], date[32], revision[48];
    char blas[512];   /* pbd_blas_name(): the Newton reference's BLAS */
    int cores, reps, quick, threads, blas_threads;
    int simd_width;    /* pbd_simd_width(): lanes of the SIMD colour kernels in this run */
    char simd_isa[16]; /* its instruction set (pbd_simd_isa) */
} bench_machine;

/* data/results/bench.csv and .h5 (the same rows plus the machine and the targets),
 * each written under a temporary name and renamed when complete. */
pbd_status bench_write_csv(const char *path, const bench_row *rows, int n,
                           const bench_machine *m);
pbd_status bench_write_h5(const char *path, const bench_row *rows, int n, const bench_machine *m,
                          const char *const *targets, int n_targets);
/* The measurements' history (--history=FILE, `make bench`: data/measurements/bench.csv): two
 * rows per table row, its ms per step min and median (revision, date, machine, ISA, load,
 * threads, what, value, unit), appended in one write; the file and its header made when
 * missing. */
pbd_status bench_append_history(const char *path, const bench_row *rows, int n,
                                const bench_machine *m);

/* qsort's comparison of doubles (increasing), and the 1-minute load average (/proc/loadavg;
 * -1 when unreadable): shared by the table's rows (bench_output.c). */
int bench_cmp_double(const void *a, const void *b);
double bench_load_average(void);
/* This process's resident memory in kB: `field` "VmRSS:" (now) or "VmHWM:" (the peak) of
 * /proc/self/status; -1 where there is none (pbd-run's and the Newton rows' memory). */
long bench_resident_kb(const char *field);

/* Whether a scene is selected by --scene (NULL: all), a comma-separated list: its name
 * contains an item, or equals one with --exact (bench_only_exact). */
extern int bench_only_exact;
int bench_selected(const char *scene, const char *only);

/* The targets' lines (experiments/programs/bench_targets.c): up to 24 of 256 characters,
 * each saying met or NOT met with its figure; returns how many. */
int bench_targets(const bench_row *rows, int n, int threads, int quick, char out[][256]);

/* The Newton reference's rows (experiments/programs/bench_newton.c): one implicit step of the
 * 64² cloth of XPBD Table 1 and of a 100² cloth with bending (--quick: 32² and 48²), scenes
 * whose name contains `only` (NULL: both); appends rows, and one target line each at
 * out[*n_targets] on. Returns 0
 * or -1 (message printed). */
int bench_newton(int quick, const char *only, bench_row *rows, int *n_rows, char out[][256],
                 int *n_targets);

/* The fluid rows (experiments/programs/bench_fluid.c): the dam break of 10⁴ and 10⁵
 * particles (--quick: 1728 and 10 648) at 4 iterations on 1 and 2 threads, the step, the
 * neighbour search and the projection as three rows each (BENCH_FLUID_ROWS in all), scenes
 * whose name contains `only` (NULL: both). Returns 0 or -1 (message printed). */
#define BENCH_FLUID_ROWS 12
int bench_fluid(int quick, const char *only, bench_row *rows, int *n_rows);

/* The yardstick (experiments/programs/bench_yardstick.c): a plain, hand-written serial
 * Gauss–Seidel step over a world's distance constraints (PBD Eq. 10/11), flat arrays, no
 * registry. */
typedef struct baseline {
    int n, m, iterations;
    double h, g[3];
    double *x, *p, *v, *w;   /* 3n, 3n, 3n, n */
    int32_t *idx;            /* 2m */
    double *rest, *k;        /* m */
    /* the bending yardstick (bench_yardstick_bend.c): dihedral hinges, 0 for the other */
    int mh;
    int32_t *hidx;           /* 4 mh */
    double *hrest, *hk;      /* mh */
} baseline;
baseline *baseline_of(const pbd_world *wd);
void baseline_free(baseline *b);
size_t baseline_bytes(const baseline *b);
void baseline_step(baseline *b);
double baseline_stretch(const baseline *b);
/* The second yardstick (experiments/programs/bench_yardstick_bend.c): the same step over the
 * world's distance constraints (Eq. 10/11) and then its dihedral hinges (PBD Eq. 28 as the
 * paper writes it, with acos). */
baseline *baseline_bend_of(const pbd_world *wd);
void baseline_bend_step(baseline *b);

#endif
