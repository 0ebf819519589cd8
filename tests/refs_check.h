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

#endif
