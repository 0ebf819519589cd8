/* Runs of an experiment into a fresh directory and the numbers they stored (test_references.c,
 * test_headlines.c). */
#ifndef PBD_REFS_CHECK_H
#define PBD_REFS_CHECK_H

#include <stddef.h>

/* A fresh directory /tmp/pbd-test-<tag>-XXXXXX in dir (64 bytes): 1, or 0 when not made. */
int refs_fresh_dir(char *dir, const char *tag);
/* pbd-run ARGS --quiet --out=DIR: its exit status. */
int refs_run(const char *dir, const char *args);
/* A number attribute of a run file, NaN when absent. */
double refs_attr(const char *path, const char *name);
/* |a − b| ≤ tol |b|. */
int refs_rel_eq(double a, double b, double tol);
/* /series/<name> of a run file (one row per step, row i = step i + 1), malloc'd; NULL when
 * absent or not one column. */
double *refs_series(const char *path, const char *name, long *rows);
/* The mean of d over the steps s > n/2 (rows s - 1): the drivers' "second half". */
double refs_second_half_mean(const double *d, long n);

#endif
