/* The gradient checker's results as HDF5 (data/results/gradcheck.h5), written under a
 * temporary name and renamed when complete (DESIGN.md "HDF5 output").
 *
 * /                 attributes: seed, samples, degenerate_samples, date, pbdlab_version,
 *                   tolerances, passed, failed
 * /<type name>/     attributes: the table line's fields and the counts;
 *                   datasets [samples]: max_rel_err, taylor_order, momentum_err, status;
 *                   datasets [degenerate_samples]: degenerate_max_rel_err, degenerate_status;
 *                   for a type with an analytic Hessian also hessian_max_rel_err and
 *                   hessian_taylor_order [samples] and as attributes */
#include "pbd_log.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char status_codes[] =
    "0 ok, 1 degenerate (eval returned PBD_EVAL_DEGENERATE: skipped), 2 non-finite, "
    "3 sample() broke its contract";

static int write_type(hid_t file, const pbd_gradcheck_result *r)
{
    const char *name = r->type->name;
    hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int err = 0;
    hsize_t n = (hsize_t)r->samples, m = (hsize_t)r->degenerate_samples;
    err |= pbd_h5_write_array(g, "max_rel_err", H5T_NATIVE_DOUBLE, 1, &n, r->rel_err) != 0;
    err |= pbd_h5_write_array(g, "taylor_order", H5T_NATIVE_DOUBLE, 1, &n, r->order) != 0;
    err |= pbd_h5_write_array(g, "momentum_err", H5T_NATIVE_DOUBLE, 1, &n, r->momentum_errs) != 0;
    err |= pbd_h5_write_array(g, "status", H5T_NATIVE_INT8, 1, &n, r->status) != 0;
    err |= pbd_h5_write_array(g, "degenerate_max_rel_err", H5T_NATIVE_DOUBLE, 1, &m, r->degenerate_rel_err) != 0;
    err |= pbd_h5_write_array(g, "degenerate_status", H5T_NATIVE_INT8, 1, &m,
                            r->degenerate_status) != 0;
    if (!err) {
        err |= H5LTset_attribute_string(g, "max_rel_err", "description",
                                        "per sample: max over coordinates of |g_a - g_fd| / "
                                        "max(|g_a|, |g_fd|, floor); NaN when not checked") < 0;
        err |= H5LTset_attribute_string(g, "taylor_order", "description",
                                        "per sample: slope of log r(h) vs log h; inf = remainder "
                                        "at rounding level (exact); NaN when not checked") < 0;
        err |= H5LTset_attribute_string(g, "status", "codes", status_codes) < 0;
        err |= H5LTset_attribute_string(g, "degenerate_status", "codes", status_codes) < 0;
    }
    if (!err && r->has_hessian) {
        err |= pbd_h5_write_array(g, "hessian_max_rel_err", H5T_NATIVE_DOUBLE, 1, &n, r->hessian_rel_err) != 0;
        err |= pbd_h5_write_array(g, "hessian_taylor_order", H5T_NATIVE_DOUBLE, 1, &n, r->hessian_order) != 0;
        double h[] = {r->hessian_max_rel_err, r->hessian_taylor_order};
        err |= H5LTset_attribute_double(g, ".", "hessian_max_rel_err", &h[0], 1) < 0;
        err |= H5LTset_attribute_double(g, ".", "hessian_taylor_order", &h[1], 1) < 0;
        err |= H5LTset_attribute_string(g, "hessian_max_rel_err", "description",
                                        "per sample: max over entries of |H_a - H_fd| / max(|H_a|, "
                                        "|H_fd|, floor), H_fd central differences of the analytic "
                                        "gradient; NaN when not checked") < 0;
    }
    int ints[] = {r->type->arity, r->type->internal, r->type->inequality, r->pass, r->samples,
                  r->checked, r->skipped, r->nonfinite, r->invalid, r->taylor_exact,
                  r->degenerate_samples, r->degenerate_skipped, r->degenerate_nonfinite,
                  r->has_hessian, r->hessian_checked, r->hessian_nonfinite};
    const char *int_names[] = {"arity", "internal", "inequality", "pass", "samples",
                               "checked", "skipped", "nonfinite", "invalid", "taylor_exact",
                               "degenerate_samples", "degenerate_skipped", "degenerate_nonfinite",
                               "has_hessian", "hessian_checked", "hessian_nonfinite"};
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++)
        err |= H5LTset_attribute_int(g, ".", int_names[i], &ints[i], 1) < 0;
    double dbl[] = {r->max_rel_err, r->taylor_order, r->momentum_err, r->degenerate_max_rel_err};
    const char *dbl_names[] = {"max_rel_err", "taylor_order", "momentum_err",
                               "degenerate_max_rel_err"};
    for (unsigned i = 0; i < sizeof dbl / sizeof dbl[0]; i++)
        err |= H5LTset_attribute_double(g, ".", dbl_names[i], &dbl[i], 1) < 0;
    err |= H5LTset_attribute_string(g, ".", "momentum", pbd_gradcheck_momentum_name(r->momentum)) < 0;
    char line[512];
    pbd_gradcheck_format_line(line, sizeof line, r);
    err |= H5LTset_attribute_string(g, ".", "line", line) < 0;
    err |= H5Gclose(g) < 0;
    return err ? -1 : 0;
}

static int write_root(hid_t file, const pbd_gradcheck_options *o, const pbd_gradcheck_result *res,
                      int n)
{
    int err = 0, passed = 0;
    for (int i = 0; i < n; i++) passed += res[i].pass != 0;
    int failed = n - passed;
    unsigned long seed = (unsigned long)o->seed; /* 64 bits on LP64 */
    err |= H5LTset_attribute_ulong(file, "/", "seed", &seed, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "samples", &o->samples, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "degenerate_samples", &o->degenerate_samples, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "passed", &passed, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "failed", &failed, 1) < 0;
    err |= H5LTset_attribute_double(file, "/", "tol_max_rel_err", &o->max_rel_err, 1) < 0;
    err |= H5LTset_attribute_double(file, "/", "tol_min_taylor_order", &o->min_taylor_order, 1) < 0;
    err |= H5LTset_attribute_double(file, "/", "tol_momentum", &o->momentum_tol, 1) < 0;
    err |= H5LTset_attribute_string(file, "/", "fd_step",
                                    "h = cbrt(DBL_EPSILON) * L, L = largest distance of a "
                                    "particle from the centroid (1 m for one particle)") < 0;
    err |= H5LTset_attribute_string(file, "/", "fd_floor",
                                    "cbrt(DBL_EPSILON^2) * (|grad C|_inf + (|C| + |grad C|_2 "
                                    "max|x_j|) / L) / tol_max_rel_err") < 0;
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    err |= H5LTset_attribute_string(file, "/", "date", date) < 0;
    err |= H5LTset_attribute_string(file, "/", "pbdlab_version", PBD_VERSION) < 0;
    err |= H5LTset_attribute_string(file, "/", "program", "pbd-gradcheck") < 0;
    return err ? -1 : 0;
}

pbd_status pbd_gradcheck_write_h5(const char *path, const pbd_gradcheck_options *opt,
                                  const pbd_gradcheck_result *results, int n)
{
    if (pbd_mkdir_parents(path) != 0)
        return pbd_error(PBD_EIO, "%s: output directory: expected to create it, found %s", path,
                         strerror(errno));
    pbd_atomic_file a; /* NAME.partial-<pid>, removed on SIGINT/SIGTERM */
    if (pbd_atomic_begin(&a, path) != PBD_OK) return PBD_EIO;
    /* HDF5 1.10 crashes at exit after an H5Fclose that failed (a full disk); this file is
     * closed explicitly, so its atexit handler is not needed (no effect once initialised) */
    H5dont_atexit();
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures reach the user as one pbd_error line */
    pbd_status st = PBD_OK;
    hid_t file = pbd_h5_create(a.tmp);
    if (file < 0) {
        st = pbd_error(PBD_EIO, "%s: expected a writable file, found that HDF5 cannot create it",
                       a.tmp);
        pbd_atomic_abort(&a);
    } else {
        int err = write_root(file, opt, results, n);
        for (int i = 0; i < n && !err; i++) err = write_type(file, &results[i]);
        err |= H5Fclose(file) < 0;
        if (err) {
            st = pbd_error(PBD_EIO, "%s: expected to write the gradient check, found an HDF5 "
                           "write error", a.tmp);
            pbd_atomic_abort(&a);
        } else {
            st = pbd_atomic_commit(&a);
        }
    }
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    return st;
}
