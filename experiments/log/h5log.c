/* One HDF5 file per run (DESIGN.md "HDF5 output"; the schema is in
 * experiments/README.md "HDF5 results").
 *
 * The file is written as <run>.h5.partial-<pid>; every `block` steps the buffered /series
 * and /iterations rows are appended to extendible, chunked datasets and the file is flushed,
 * so an interrupted run keeps valid data under the temporary name. pbd_h5log_finish writes
 * the XDMF sidecar and renames the file: a truncated file never carries the final name.
 * A run stopped early (watchdog, SIGINT/SIGTERM, write error) is closed cleanly by
 * pbd_h5log_finish_partial and renamed to <run>.partial.h5 instead. */
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

/* ---- open / step / finish ----------------------------------------------------------- */

void log_close_handles(pbd_h5log *log)
{
    for (int i = 0; i < log->n_cols; i++) {
        if (log->cols[i].dset > 0) H5Dclose(log->cols[i].dset);
        free(log->cols[i].buf);
    }
    for (int i = 0; i < log->n_its; i++) {
        if (log->its[i].dset > 0) H5Dclose(log->its[i].dset);
        free(log->its[i].buf);
    }
    log->n_its = 0;
    hid_t *fr[] = {&log->fr_time, &log->fr_step, &log->fr_n, &log->fr_topo};
    for (unsigned i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        if (*fr[i] > 0) H5Dclose(*fr[i]);
        *fr[i] = -1;
    }
    if (log->file > 0) H5Fclose(log->file);
    log->file = -1;
    log->n_cols = 0;
}

void log_free(pbd_h5log *log)
{
    log_close_handles(log);
    log_free_frames(log);
    free(log);
}

int log_valid_name(const char *s)
{
    if (!s || !*s || strlen(s) > 200) return 0;
    for (; *s; s++)
        if (*s == '/' || *s == ' ' || (unsigned char)*s < 32) return 0;
    return 1;
}

pbd_h5log *pbd_h5log_open(const char *out_dir, const char *experiment, const char *run,
                          const pbd_world *w, const pbd_h5log_options *opt)
{
    log_quiet_hdf5();
    if (!log_valid_name(experiment) || !log_valid_name(run)) {
        pbd_error(PBD_EINVAL, "h5log: run name: expected a non-empty name without '/' or "
                  "spaces, found '%s/%s'", experiment ? experiment : "", run ? run : "");
        return NULL;
    }
    pbd_h5log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->file = -1;
    log->block = opt && opt->block > 0 ? opt->block : 64;
    log->frames_every = opt ? opt->frames_every : 0;
    log->frame_velocities = opt ? opt->frame_velocities : 0;
    log->fr_time = log->fr_step = log->fr_n = log->fr_topo = -1;
    log->n = w->n;
    snprintf(log->run, sizeof log->run, "%s", run);
    if (snprintf(log->dir, sizeof log->dir, "%s/%s", out_dir, experiment) >= (int)sizeof log->dir) {
        pbd_error(PBD_EINVAL, "h5log: --out: expected a path shorter than %d bytes, found %zu",
                  (int)sizeof log->dir - 64, strlen(out_dir));
        free(log);
        return NULL;
    }
    snprintf(log->path, sizeof log->path, "%s/%s.h5", log->dir, run);
    snprintf(log->partial, sizeof log->partial, "%s.partial-%ld", log->path, (long)getpid());
    snprintf(log->stopped, sizeof log->stopped, "%s/%s.partial.h5", log->dir, run);
    if (pbd_mkdirs(log->dir) != 0) {
        pbd_error(PBD_EIO, "%s: cannot create the results directory: %s", log->dir,
                  strerror(errno));
        free(log);
        return NULL;
    }
    errno = 0;
    log->file = H5Fcreate(log->partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (log->file < 0) {
        pbd_error(PBD_EIO, "%s: cannot create the HDF5 file: %s", log->partial,
                  errno ? strerror(errno) : "is the directory writable?");
        free(log);
        return NULL;
    }
    errno = 0;
    if (log_write_provenance(log, experiment, run) != PBD_OK ||
        log_write_solver_def(log, &w->def) != PBD_OK || log_write_scene(log, w, opt) != 0 ||
        log_make_series(log, w) != 0 || log_make_iterations(log, w) != 0 || log_make_frames(log, w) != 0 ||
        H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0) {
        int err = errno;
        pbd_error(PBD_EIO, "%s: cannot write the file's header datasets: %s", log->partial,
                  log_io_reason(err));
        pbd_h5log_discard(log);
        return NULL;
    }
    /* what one block of steps can add: its rows, its frames, and metadata */
    hsize_t row = 0;
    for (int i = 0; i < log->n_cols; i++) row += (hsize_t)log->cols[i].width;
    row += (hsize_t)log->n_its * (hsize_t)log->iter_width;
    log->reserve = 8 * (hsize_t)log->block * row + (256u << 10);
    log_write_machine(log, 0);
    return log;
}

const char *pbd_h5log_path(const pbd_h5log *log) { return log->path; }
const char *pbd_h5log_partial_path(const pbd_h5log *log) { return log->partial; }

pbd_status pbd_h5log_finish(pbd_h5log *log)
{
    pbd_status st = log_flush_block(log);
    if (st == PBD_OK) {
        long frames = (long)log->n_frames;
        log_write_machine(log, 1);
        if (H5LTset_attribute_long(log->file, "/", "frames", &frames, 1) < 0 ||
            H5LTset_attribute_long(log->file, "/", "complete", &(long){1}, 1) < 0)
            st = pbd_error(PBD_EIO, "%s: cannot write the closing attributes", log->partial);
    }
    log_close_handles(log);
    if (st == PBD_OK && log_check_and_trim(log->partial) < 0)
        st = pbd_error(PBD_EIO, "%s: expected a readable HDF5 file after closing, found none",
                       log->partial);
    if (st == PBD_OK) st = log_write_xdmf(log);
    if (st == PBD_OK && rename(log->partial, log->path) != 0)
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s", log->partial, log->path,
                       strerror(errno));
    if (st != PBD_OK) remove(log->partial);
    else remove(log->stopped); /* a partial file of an earlier, stopped attempt */
    log_free(log);
    return st;
}

pbd_status pbd_h5log_finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                    size_t kept_size, long *steps_kept)
{
    if (kept && kept_size) kept[0] = '\0';
    if (steps_kept) *steps_kept = -1;
    /* after a failed write nothing more is written: the file stays as its last flush */
    pbd_status st = log->write_failed ? PBD_EIO : log_flush_block(log);
    char why[1024] = "";
    if (st != PBD_OK) snprintf(why, sizeof why, "%s", pbd_last_error());
    if (!log->write_failed && log_reserve_space(log, 0, "the closing attributes") == PBD_OK) {
        /* the attributes say the file is partial and why */
        long frames = (long)log->n_frames, rows = (long)log->rows;
        log_write_machine(log, 1);
        H5LTset_attribute_long(log->file, "/", "frames", &frames, 1);
        H5LTset_attribute_long(log->file, "/", "steps", &rows, 1);
        H5LTset_attribute_long(log->file, "/", "complete", &(long){0}, 1);
        H5LTset_attribute_string(log->file, "/", "stopped", reason ? reason : "");
    }
    log_close_handles(log);
    if (rename(log->partial, log->stopped) != 0) {
        int err = errno;
        remove(log->partial);
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s", log->partial, log->stopped,
                       strerror(err));
        log_free(log);
        return st;
    }
    long n = log_check_and_trim(log->stopped);
    if (steps_kept) *steps_kept = n;
    if (n < 0) { /* e.g. the disk filled up while HDF5 wrote its metadata: nothing to keep */
        remove(log->stopped);
        st = pbd_error(PBD_EIO, "%s: could not be completed as a readable HDF5 file%s%s",
                       log->stopped, *why ? " after: " : "", why);
    } else {
        if (kept && kept_size) snprintf(kept, kept_size, "%s", log->stopped);
        if (st != PBD_OK) pbd_error(st, "%s", why);
    }
    log_free(log);
    return st;
}

pbd_status pbd_h5log_stop(pbd_h5log *log, pbd_status st)
{
    char reason[1024], kept[4096], why[1024];
    snprintf(reason, sizeof reason, "%s", pbd_last_error());
    long steps = -1;
    pbd_h5log_finish_partial(log, reason, kept, sizeof kept, &steps);
    snprintf(why, sizeof why, "%s", pbd_last_error());
    if (!*kept)
        return pbd_error(st, "%s; nothing kept (%s)", reason, why);
    if (steps == 0)
        return pbd_error(st, "%s; no step completed: the scene and parameters are in %s", reason,
                         kept);
    return pbd_error(st, "%s; kept steps 1-%ld in %s", reason, steps, kept);
}

void pbd_h5log_discard(pbd_h5log *log)
{
    if (!log) return;
    log_close_handles(log);
    remove(log->partial);
    log_free(log);
}
