/* Runs of an experiment into a fresh directory and the numbers they stored. */
#include "tests/refs_check.h"

#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int refs_fresh_dir(char *dir, const char *tag)
{
    snprintf(dir, 64, "/tmp/pbd-test-%s-XXXXXX", tag);
    return mkdtemp(dir) != NULL;
}

int refs_run(const char *dir, const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s --quiet --out=%s >/dev/null 2>&1", test_bin_dir(),
             args, dir);
    return test_run(cmd);
}

double refs_attr(const char *path, const char *name)
{
    double v = NAN;
    if (pbd_h5_read_attr_double(path, name, &v) != 0) return NAN;
    return v;
}

int refs_rel_eq(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

double *refs_series(const char *path, const char *name, long *rows)
{
    char ds[128];
    double *d = NULL;
    long c = 0;
    snprintf(ds, sizeof ds, "/series/%s", name);
    if (pbd_h5_read_dataset(path, ds, &d, rows, &c) != 0 || c != 1) {
        free(d);
        return NULL;
    }
    return d;
}

double refs_second_half_mean(const double *d, long n)
{
    double sum = 0.0;
    long k = 0;
    for (long s = n / 2 + 1; s <= n; s++, k++) sum += d[s - 1];
    return sum / k;
}
