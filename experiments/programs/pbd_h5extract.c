/* pbd-h5extract FILE.h5 DATASET… : HDF5 datasets as whitespace-separated columns for
 * gnuplot (which does not read HDF5). A 2-D dataset gives one column per inner index. */
#include "experiments/pbd_experiments.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DATASETS 32

static const char *const usage =
    "pbd-h5extract FILE.h5 DATASET [DATASET...] [options]\n"
    "       pbd-h5extract FILE.h5 --attr NAME\n"
    "       pbd-h5extract FILE.h5 --list\n\n"
    "Prints datasets side by side as whitespace-separated columns (a 2-D dataset gives one\n"
    "column per inner index; all must have the same number of rows), with a '#' header\n"
    "naming the columns. NaN is printed as NaN, which gnuplot skips.";

static void print_value(double v)
{
    if (isnan(v)) fputs("NaN", stdout);
    else printf("%.15g", v);
}

/* A root attribute NAME, or with a '/' in it OBJECT/NAME: an attribute of a dataset or group
 * (e.g. /series/time/units). Strings as they are, numbers space-separated. */
static int print_attr(const char *path, const char *name)
{
    char buf[8192], obj[4096] = "/";
    const char *slash = strrchr(name, '/');
    if (slash) { /* an object's attribute */
        snprintf(obj, sizeof obj, "%.*s", (int)(slash - name), name);
        if (!obj[0]) snprintf(obj, sizeof obj, "/");
        name = slash + 1;
    } else if (pbd_h5_read_attr_string(path, name, buf, sizeof buf) == 0) {
        printf("%s\n", buf);
        return 0;
    }
    if (pbd_h5_regular_file(path, buf, sizeof buf) != 0) {
        fprintf(stderr, "pbd-h5extract: %s\n", buf);
        return 1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        fprintf(stderr, "pbd-h5extract: %s: expected an HDF5 file, found none readable\n", path);
        return 1;
    }
    int rc = 1;
    hsize_t dims[4] = {1, 1, 1, 1};
    H5T_class_t cls;
    size_t size;
    int rank = -1;
    if ((strcmp(obj, "/") == 0 || H5Lexists(f, obj, H5P_DEFAULT) > 0) &&
        H5Aexists_by_name(f, obj, name, H5P_DEFAULT) > 0 &&
        H5LTget_attribute_ndims(f, obj, name, &rank) >= 0 && rank >= 0 && rank <= 1 &&
        H5LTget_attribute_info(f, obj, name, dims, &cls, &size) >= 0) {
        if (cls == H5T_STRING && (rank == 0 || dims[0] == 1) && size < sizeof buf) {
            if (H5LTget_attribute_string(f, obj, name, buf) >= 0) {
                buf[size] = '\0';
                printf("%s\n", buf);
                rc = 0;
            }
        } else if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && dims[0] <= 64) {
            double v[64];
            if (H5LTget_attribute_double(f, obj, name, v) >= 0) {
                for (hsize_t i = 0; i < dims[0]; i++) printf(i ? " %.12g" : "%.12g", v[i]);
                putchar('\n');
                rc = 0;
            }
        }
    }
    H5Fclose(f);
    if (rc) fprintf(stderr, "pbd-h5extract: %s: attribute %s: expected it on %s, found none\n",
                    path, name, obj);
    return rc;
}

static herr_t list_visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hsize_t dims[8];
    int rank = H5Sget_simple_extent_ndims(s);
    H5Sget_simple_extent_dims(s, dims, NULL);
    printf("/%s (", name);
    for (int r = 0; r < rank; r++) printf("%s%llu", r ? " x " : "", (unsigned long long)dims[r]);
    printf(")\n");
    H5Sclose(s);
    H5Dclose(d);
    return 0;
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *attr = NULL;
    int list = 0, every = 1, row = -1, has_row = 0;
    cli_option opts[] = {
        {"attr", CLI_STRING, &attr, 0, 0, 0, "print the root attribute NAME (OBJECT/NAME: a dataset's or group's, e.g. /series/time/units) and exit", NULL},
        {"list", CLI_FLAG, &list, 0, 0, 0, "list the datasets and their shapes", NULL},
        {"every", CLI_INT, &every, 1, 1e9, 0, "print every N-th row", NULL},
        {"row", CLI_INT, &row, -1e9, 1e9, 0,
         "print row K of each dataset as a column (negative: from the end), with its index",
         NULL},
    };
    const char *pos[MAX_DATASETS + 1];
    int np = 0;
    for (int i = 1; i < argc; i++) has_row |= strncmp(argv[i], "--row", 5) == 0;
    int rc = cli_parse("pbd-h5extract", usage, argc, argv, 1, opts, 4, pos, MAX_DATASETS + 1, &np);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (np < 1) {
        fprintf(stderr, "pbd-h5extract: expected FILE.h5, found nothing (see --help)\n");
        return 2;
    }
    const char *path = pos[0];
    char why[4600]; /* a FIFO, a corrupt file: one line, exit 1, never a hang or a crash */
    if (pbd_h5_check_file(path, why, sizeof why) != 0) {
        fprintf(stderr, "pbd-h5extract: %s\n", why);
        return 1;
    }
    if (attr) return print_attr(path, attr);
    if (list) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) {
            fprintf(stderr, "pbd-h5extract: %s: expected an HDF5 file, found none readable\n", path);
            return 1;
        }
        H5Ovisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, list_visit, NULL);
        H5Fclose(f);
        return 0;
    }
    if (np < 2) {
        fprintf(stderr, "pbd-h5extract: expected a DATASET after %s, found nothing\n", path);
        return 2;
    }
    int nd = np - 1;
    double *data[MAX_DATASETS];
    long rows[MAX_DATASETS], cols[MAX_DATASETS];
    int status = 0;
    for (int i = 0; i < nd; i++) {
        if (pbd_h5_read_dataset(path, pos[i + 1], &data[i], &rows[i], &cols[i]) != 0) {
            fprintf(stderr, "pbd-h5extract: %s: dataset %s: expected a numeric dataset, found "
                    "none readable\n", path, pos[i + 1]);
            for (int j = 0; j < i; j++) free(data[j]);
            return 1;
        }
    }
    for (int i = 0; has_row && i < nd; i++) {
        long r = row < 0 ? rows[i] + row : row;
        if (r < 0 || r >= rows[i]) {
            fprintf(stderr, "pbd-h5extract: --row: expected a row of %s in [%ld, %ld], found %d\n",
                    pos[i + 1], -rows[i], rows[i] - 1, row);
            for (int j = 0; j < nd; j++) free(data[j]);
            return 2;
        }
    }
    if (has_row) {
        /* one column per dataset: row K's entries, with the inner index in front */
        printf("# index");
        for (int i = 0; i < nd; i++) printf(" %s[%d]", pos[i + 1], row);
        putchar('\n');
        long n = 0;
        for (int i = 0; i < nd; i++) n = cols[i] > n ? cols[i] : n;
        for (long c = 0; c < n; c += every) {
            printf("%ld", c + 1);
            for (int i = 0; i < nd; i++) {
                long r = row < 0 ? rows[i] + row : row;
                putchar(' ');
                print_value(r >= 0 && r < rows[i] && c < cols[i] ? data[i][r * cols[i] + c] : NAN);
            }
            putchar('\n');
        }
    } else {
        for (int i = 1; i < nd; i++)
            if (rows[i] != rows[0]) {
                fprintf(stderr, "pbd-h5extract: %s: dataset %s: expected %ld rows like %s, found "
                        "%ld\n", path, pos[i + 1], rows[0], pos[1], rows[i]);
                status = 1;
            }
        if (!status) {
            putchar('#');
            for (int i = 0; i < nd; i++) {
                char cnames[1024] = "";
                hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
                if (f >= 0) {
                    hid_t d = H5Dopen2(f, pos[i + 1], H5P_DEFAULT);
                    hsize_t cd[1] = {1};
                    H5T_class_t cc;
                    size_t clen = 0;
                    int crank = -1; /* read only what fits cnames */
                    if (d >= 0 && H5Aexists(d, "columns") > 0 &&
                        H5LTget_attribute_ndims(d, ".", "columns", &crank) >= 0 && crank == 0 &&
                        H5LTget_attribute_info(d, ".", "columns", cd, &cc, &clen) >= 0 &&
                        cc == H5T_STRING && clen < sizeof cnames)
                        H5LTget_attribute_string(d, ".", "columns", cnames);
                    if (d >= 0) H5Dclose(d);
                    H5Fclose(f);
                }
                if (*cnames) printf(" %s", cnames);
                else if (cols[i] == 1) printf(" %s", pos[i + 1]);
                else
                    for (long c = 0; c < cols[i]; c++) printf(" %s[%ld]", pos[i + 1], c);
            }
            putchar('\n');
            for (long r = 0; r < rows[0]; r += every) {
                for (int i = 0; i < nd; i++)
                    for (long c = 0; c < cols[i]; c++) {
                        if (i || c) putchar(' ');
                        print_value(data[i][r * cols[i] + c]);
                    }
                putchar('\n');
            }
        }
    }
    for (int i = 0; i < nd; i++) free(data[i]);
    return status;
}
