/* HDF5 building blocks of a run file: extendible datasets, appended rows, units, and the
 * space reserved ahead of every write so that a full disk never leaves a truncated file. */
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

/* ---- small helpers ---------------------------------------------------------------- */

void log_quiet_hdf5(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* HDF5 1.10 crashes in its atexit handler (H5_term_library -> H5F__close_cb) after an
 * H5Fclose that failed because the disk was full; every file is closed explicitly here, so
 * the handler is not needed. It must be switched off before the library's first call. */
__attribute__((constructor)) static void no_hdf5_atexit(void) { H5dont_atexit(); }

/* Why a write failed, for the error line: the system's reason (errno of the first failing
 * write, e.g. "File too large", "No space left on device") when there is one. */
const char *log_io_reason(int err)
{
    return err ? strerror(err) : "HDF5 write error";
}

hid_t log_create_extendible(hid_t loc, const char *name, hid_t type, int rank,
                               const hsize_t *inner, const hsize_t *chunk, int deflate)
{
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0};
    for (int r = 1; r < rank; r++) dims[r] = maxd[r] = inner[r - 1];
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (deflate) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    H5Pset_fletcher32(dcpl); /* a flipped byte in a chunk is a read error, not a number */
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Every file pbdlab writes: HDF5's newer format (H5F_LIBVER_V18 as the low bound):
 * superblock version 2, version-2 object headers (attributes, links, dataset layout),
 * fractal heaps and version-2 B-trees, all with Jenkins checksums that the library verifies
 * on every read, so a flipped byte in them is a read error instead of garbage. Every dataset
 * also carries a Fletcher-32 checksum (pbd_h5_write_array, log_create_extendible). Not the
 * 1.10 bound: its superblock version 3 marks the file "open for write" while it is written,
 * and a run killed outright (SIGKILL) would leave a file that no reader opens without
 * `h5clear -s`; a version-2 superblock has no such mark, and the steps flushed before the
 * kill stay readable. (The chunk indexes stay version-1 B-trees without checksums: the
 * readers' fork guard, pbd_h5_check_file, covers what they miss.) */
long long pbd_h5_create(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return -1;
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    /* the root's attributes stay in its object header (checksummed), never in dense
     * storage: a fractal heap's direct blocks carry no checksum by default */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0) H5Pset_attr_phase_change(fcpl, 65535, 0);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT, fapl);
    if (fcpl >= 0) H5Pclose(fcpl);
    H5Pclose(fapl);
    return f;
}

int pbd_h5_write_array(long long loc, const char *name, long long type, int rank,
                       const unsigned long long *dims, const void *data)
{
    hsize_t total = 1, chunk[8];
    if (rank < 1 || rank > 8) return -1;
    for (int r = 0; r < rank; r++) {
        total *= dims[r];
        chunk[r] = dims[r];
    }
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (total > 0) { /* chunked (at most ~256 MB a chunk), so that it can carry a checksum */
        size_t row = H5Tget_size((hid_t)type);
        for (int r = 1; r < rank; r++) row *= (size_t)dims[r];
        hsize_t max_rows = (hsize_t)((256u << 20) / (row ? row : 1));
        if (chunk[0] > max_rows) chunk[0] = max_rows ? max_rows : 1;
        H5Pset_chunk(dcpl, rank, chunk);
        if (total >= 64) {
            H5Pset_shuffle(dcpl);
            H5Pset_deflate(dcpl, 4);
        }
        H5Pset_fletcher32(dcpl);
    }
    hid_t d = H5Dcreate2((hid_t)loc, name, (hid_t)type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int bad = d < 0 || (total > 0 && H5Dwrite(d, (hid_t)type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                              data) < 0);
    if (d >= 0) H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return bad ? -1 : 0;
}

/* Append `nrows` rows (of inner size given by the dataset) at row `at`. */
herr_t log_append_rows(hid_t d, hsize_t at, hsize_t nrows, const double *buf)
{
    hid_t fs = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(fs);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    dims[0] = at + nrows;
    if (H5Dset_extent(d, dims) < 0) return -1;
    fs = H5Dget_space(d);
    hsize_t start[3] = {at, 0, 0}, count[3];
    count[0] = nrows;
    for (int r = 1; r < rank; r++) count[r] = dims[r];
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    herr_t st = H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return st;
}

void log_set_units(hid_t d, const char *units, const char *description)
{
    if (units) H5LTset_attribute_string(d, ".", "units", units);
    if (description) H5LTset_attribute_string(d, ".", "description", description);
}

/* ---- space for the next writes (a full disk) ------------------------------------------ */

/* Before HDF5 writes a block of steps, a frame or a /results dataset, the file is made to
 * own the space those writes (and the metadata that follows) can take: posix_fallocate from
 * the end of HDF5's allocated space (EOA), `reserve` bytes ahead. On a full disk (ENOSPC) or
 * at the file-size limit (EFBIG) that fails BEFORE HDF5 has touched the file, which stays as
 * its last flush left it: closing it then writes only into space it owns, and the steps
 * flushed so far stay readable. (Without this, HDF5 fails half-way through a flush and the
 * file cannot be opened again: "truncated file".) */
pbd_status log_reserve_space(pbd_h5log *log, hsize_t extra, const char *what)
{
    if (log->write_failed)
        return pbd_error(PBD_EIO, "%s: an earlier write failed; not writing %s", log->partial,
                         what);
    haddr_t eoa;
    void *handle = NULL;
    if (H5Fget_eoa(log->file, &eoa) < 0 || H5Fget_vfd_handle(log->file, H5P_DEFAULT, &handle) < 0 ||
        !handle)
        return PBD_OK; /* cannot tell: let HDF5 try */
    hsize_t need = log->reserve + extra;
    if ((hsize_t)eoa + need <= log->reserved_end) return PBD_OK;
    int err = posix_fallocate(*(int *)handle, (off_t)eoa, (off_t)(2 * need));
    if (err == EINVAL || err == EOPNOTSUPP) return PBD_OK; /* no fallocate: let HDF5 try */
    if (err) {
        log->write_failed = 1;
        return pbd_error(PBD_EIO, "%s: cannot reserve %llu bytes for %s: %s", log->partial,
                         (unsigned long long)(2 * need), what, strerror(err));
    }
    log->reserved_end = (hsize_t)eoa + 2 * need;
    return PBD_OK;
}

/* Open a closed file again: the rows of /series/time whose last one reads back (-1 when
 * the file cannot be read), and the file cut to its EOA (the unused reservation). */
long log_check_and_trim(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    long rows = -1;
    haddr_t eoa = 0;
    if (H5Fget_eoa(f, &eoa) < 0) eoa = 0;
    hid_t d = H5Dopen2(f, "/series/time", H5P_DEFAULT);
    if (d >= 0) {
        hid_t sp = H5Dget_space(d);
        hsize_t dims[1];
        if (H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1) {
            if (dims[0] == 0) {
                rows = 0;
            } else { /* the last row must read back, not only the extent */
                double last = 0.0;
                hsize_t start[1] = {dims[0] - 1}, count[1] = {1};
                hid_t ms = H5Screate_simple(1, count, NULL);
                H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
                if (H5Dread(d, H5T_NATIVE_DOUBLE, ms, sp, H5P_DEFAULT, &last) >= 0)
                    rows = (long)dims[0];
                H5Sclose(ms);
            }
        }
        H5Sclose(sp);
        H5Dclose(d);
    }
    H5Fclose(f);
    struct stat sb;
    if (rows >= 0 && eoa > 0 && stat(path, &sb) == 0 && (haddr_t)sb.st_size > eoa)
        if (truncate(path, (off_t)eoa) != 0) rows = -1;
    return rows;
}
