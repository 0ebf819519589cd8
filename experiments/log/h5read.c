/* Reading result files back: attributes and whole datasets (summaries, pbd-report,
 * pbd-h5extract). */
#include "log_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- reading back ------------------------------------------------------------------- */

/* H5Fopen of a regular file only (a FIFO would block in open(2)). */
static hid_t open_ro(const char *path)
{
    char why[64];
    if (pbd_h5_regular_file(path, why, sizeof why) != 0) return -1;
    return H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
}

int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size)
{
    log_quiet_hdf5();
    hid_t f = open_ro(path);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t len;
        hsize_t dims[4] = {1, 1, 1, 1};
        int rank = -1; /* a hostile file's rank must fit dims; one string only */
        if (H5LTget_attribute_ndims(f, "/", name, &rank) >= 0 && rank >= 0 && rank <= 1 &&
            H5LTget_attribute_info(f, "/", name, dims, &cls, &len) >= 0 && cls == H5T_STRING &&
            (rank == 0 || dims[0] == 1) && len < (1u << 24)) {
            char *tmp = malloc(len + 1);
            if (tmp && H5LTget_attribute_string(f, "/", name, tmp) >= 0) {
                tmp[len] = '\0';
                snprintf(buf, size, "%s", tmp);
                rc = 0;
            }
            free(tmp);
        }
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_dataset(const char *path, const char *dataset, double **data, long *rows,
                        long *cols)
{
    log_quiet_hdf5();
    *data = NULL;
    hid_t f = open_ro(path);
    if (f < 0) return -1;
    int rc = -1;
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    if (d >= 0) {
        hid_t s = H5Dget_space(d);
        int rank = H5Sget_simple_extent_ndims(s);
        hsize_t dims[8] = {0};
        if (rank >= 1 && rank <= 8 && H5Sget_simple_extent_dims(s, dims, NULL) == rank) {
            hsize_t inner = 1, limit = (hsize_t)1 << 37; /* 1 TB of doubles: a hostile size */
            int big = 0;
            for (int r = 1; r < rank; r++) {
                big |= dims[r] != 0 && inner > limit / dims[r];
                inner *= dims[r];
            }
            big |= inner != 0 && dims[0] > limit / inner;
            size_t total = big ? 0 : (size_t)(dims[0] * inner);
            if (big) goto done; /* no multiplication that wraps round to a small buffer */
            double *buf = malloc((total ? total : 1) * sizeof *buf);
            if (buf && (total == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                              H5P_DEFAULT, buf) >= 0)) {
                *data = buf;
                *rows = (long)dims[0];
                *cols = (long)inner;
                rc = 0;
            } else {
                free(buf);
            }
        }
    done:
        H5Sclose(s);
        H5Dclose(d);
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_attr_doubles(const char *path, const char *name, double *v, int n)
{
    log_quiet_hdf5();
    hid_t f = open_ro(path);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t size;
        hsize_t dims[4] = {1, 1, 1, 1};
        int rank = 0;
        if (H5LTget_attribute_ndims(f, "/", name, &rank) >= 0 && rank <= 1 &&
            H5LTget_attribute_info(f, "/", name, dims, &cls, &size) >= 0 &&
            (cls == H5T_FLOAT || cls == H5T_INTEGER) && (rank == 0 ? 1 : (int)dims[0]) == n)
            rc = H5LTget_attribute_double(f, "/", name, v) < 0 ? -1 : 0;
    }
    H5Fclose(f);
    return rc;
}

static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)info;
    pbd_h5_names *out = data;
    if (out->count < PBD_H5_MAX_NAMES)
        snprintf(out->name[out->count], sizeof out->name[0], "%s", name);
    out->count++;
    return 0;
}

int pbd_h5_read_names(const char *path, const char *group, pbd_h5_names *out)
{
    log_quiet_hdf5();
    out->count = 0;
    hid_t f = open_ro(path);
    if (f < 0) return -1;
    int rc = -1;
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (g >= 0) {
        hsize_t idx = 0;
        rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, add_name, out) < 0 ? -1 : 0;
        H5Gclose(g);
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_attr_double(const char *path, const char *name, double *v)
{
    return pbd_h5_read_attr_doubles(path, name, v, 1);
}
