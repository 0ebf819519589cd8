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

int pbd_h5_read_attr_double(const char *path, const char *name, double *v)
{
    log_quiet_hdf5();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t size;
        hsize_t dims[4] = {1, 1, 1, 1};
        if (H5LTget_attribute_info(f, "/", name, dims, &cls, &size) >= 0 &&
            (cls == H5T_FLOAT || cls == H5T_INTEGER) && dims[0] == 1)
            rc = H5LTget_attribute_double(f, "/", name, v) < 0 ? -1 : 0;
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size)
{
    log_quiet_hdf5();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t len;
        hsize_t dims[4] = {1, 1, 1, 1};
        if (H5LTget_attribute_info(f, "/", name, dims, &cls, &len) >= 0 && cls == H5T_STRING) {
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
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    if (d >= 0) {
        hid_t s = H5Dget_space(d);
        int rank = H5Sget_simple_extent_ndims(s);
        hsize_t dims[8] = {0};
        if (rank >= 1 && rank <= 8) {
            H5Sget_simple_extent_dims(s, dims, NULL);
            hsize_t inner = 1;
            for (int r = 1; r < rank; r++) inner *= dims[r];
            size_t total = (size_t)(dims[0] * inner);
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
        H5Sclose(s);
        H5Dclose(d);
    }
    H5Fclose(f);
    return rc;
}
