/* One HDF5 file per run (DESIGN.md "HDF5 output"; the schema is in
 * experiments/README.md "HDF5 results").
 *
 * The file is written as <run>.h5.partial-<pid>; every `block` steps the buffered /series
 * and /iterations rows are appended to extendible, chunked datasets and the file is flushed,
 * so an interrupted run keeps valid data under the temporary name. pbd_h5log_finish renames
 * the file, then writes the XDMF sidecar: a truncated file never carries the final name,
 * and a file that holds finished steps is never deleted (a failed rename keeps it as
 * <run>.partial.h5 with complete = 1 and the reason; a failed sidecar leaves the data file
 * alone). A run stopped early (watchdog, SIGINT/SIGTERM, write error) is closed cleanly by
 * pbd_h5log_finish_partial and renamed to <run>.partial.h5 instead. Every file carries
 * complete, steps, frames and stopped from its creation on (log_write_progress). */
#include "log_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pbd_status finish(pbd_h5log *log);
static pbd_status finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                 size_t kept_size, long *steps_kept);
static pbd_status stop(pbd_h5log *log, pbd_status st);

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

static void lock_path(const pbd_h5log *log, char *buf, size_t size);

void log_free(pbd_h5log *log)
{
    log_close_handles(log);
    log_free_frames(log);
    if (log->lock_fd >= 0) { /* removed, then released: see take_lock */
        char path[3400];
        lock_path(log, path, sizeof path);
        unlink(path);
        close(log->lock_fd);
    }
    free(log);
}

void log_enter(pbd_h5log *log)
{
    log->depth++;
    pbd_interrupt_busy(1);
}

void log_leave(pbd_h5log *log)
{
    if (--log->depth == 0 && log->dirty && log->file > 0 && !log->write_failed &&
        H5Fflush(log->file, H5F_SCOPE_GLOBAL) >= 0)
        log->dirty = 0;
    pbd_interrupt_busy(0);
}

/* The run's lock (a results directory is consistent): flock(2) on <dir>/.<run>.lock, held
 * while the log lives. A second process writing the same run is refused before it writes
 * anything, so one run's finish never removes what another keeps (its <run>.partial.h5).
 * The holder removes the lock file before it releases the lock; a process that opened the
 * file just before and gets the lock then finds the path gone or another inode, and tries
 * again (the usual flock + unlink protocol). */
static void lock_path(const pbd_h5log *log, char *buf, size_t size)
{
    snprintf(buf, size, "%s/.%s.lock", log->dir, log->run);
}

static int take_lock(pbd_h5log *log)
{
    char path[3400];
    lock_path(log, path, sizeof path);
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            pbd_error(PBD_EIO, "%s: cannot open the run's lock file: %s", path, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            close(fd);
            if (err == EWOULDBLOCK)
                pbd_error(PBD_EIO, "%s/%s: expected no other process writing this run, found "
                          "one holding %s: wait for it to end, or choose another --run or "
                          "--out", log->dir, log->run, path);
            else
                pbd_error(PBD_EIO, "%s: cannot lock: %s", path, strerror(err));
            return -1;
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_ino == now.st_ino &&
            held.st_dev == now.st_dev) {
            log->lock_fd = fd;
            return 0;
        }
        close(fd); /* removed by the holder that just ended: again */
    }
    pbd_error(PBD_EIO, "%s: cannot lock: the lock file keeps changing", path);
    return -1;
}

int log_valid_name(const char *s)
{
    if (!s || !*s || strlen(s) > 200 || *s == '.') return 0; /* no hidden files, no . or .. */
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
                  "spaces, not starting with '.', found '%s/%s'", experiment ? experiment : "", run ? run : "");
        return NULL;
    }
    pbd_h5log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->file = -1;
    log->lock_fd = -1;
    log->block = log->capacity = opt && opt->block > 0 ? opt->block : 64;
    log->flush_seconds = !opt || opt->flush_seconds == 0.0 ? 0.5 : opt->flush_seconds;
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
    /* the names the run will take must be free for a file: found now, not after the run */
    char xdmf[3400];
    snprintf(xdmf, sizeof xdmf, "%s/%s.xdmf", log->dir, run);
    const char *names[] = {log->path, log->stopped, xdmf};
    for (int k = 0; k < 3; k++) {
        struct stat sb;
        if (stat(names[k], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            pbd_error(PBD_EIO, "%s: expected a file name for the run's results, found a "
                      "directory", names[k]);
            free(log);
            return NULL;
        }
    }
    if (pbd_mkdirs(log->dir) != 0) {
        pbd_error(PBD_EIO, "%s: cannot create the results directory: %s", log->dir,
                  strerror(errno));
        free(log);
        return NULL;
    }
    if (take_lock(log) != 0) {
        free(log);
        return NULL;
    }
    errno = 0;
    pbd_interrupt_keep_file(log->partial, NULL); /* no step yet: removed on a hard stop */
    log->file = pbd_h5_create(log->partial);
    if (log->file < 0) {
        pbd_error(PBD_EIO, "%s: cannot create the HDF5 file: %s", log->partial,
                  errno ? strerror(errno) : "is the directory writable?");
        pbd_interrupt_keep_file(NULL, NULL);
        log_free(log);
        return NULL;
    }
    log_enter(log);
    errno = 0;
    if (log_write_provenance(log, experiment, run) != PBD_OK ||
        log_write_solver_def(log, &w->def) != PBD_OK || log_write_scene(log, w, opt) != 0 ||
        log_make_series(log, w) != 0 || log_make_iterations(log, w) != 0 || log_make_frames(log, w) != 0 ||
        (log->frames_flushed = log->n_frames, log_write_progress(log, 0, LOG_RUNNING)) != 0 ||
        log_write_machine(log, 0) != 0 ||
        H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0) {
        int err = errno;
        pbd_error(err == ENOMEM ? PBD_ENOMEM : PBD_EIO, "%s: cannot write the file's header "
                  "datasets: %s", log->partial, err == ENOMEM ? "out of memory" : log_io_reason(err));
        log_leave(log);
        pbd_h5log_discard(log);
        return NULL;
    }
    pbd_interrupt_keep_file(log->partial, log->stopped); /* for the grace timer */
    log_leave(log);
    /* what one flush can add: its rows, and metadata (a frame reserves its own) */
    hsize_t row = 0;
    for (int i = 0; i < log->n_cols; i++) row += (hsize_t)log->cols[i].width;
    row += (hsize_t)log->n_its * (hsize_t)log->iter_width;
    log->row_bytes = 8 * row;
    log->reserve = log->row_bytes * (hsize_t)log->capacity + (256u << 10);
    return log;
}

const char *pbd_h5log_path(const pbd_h5log *log) { return log->path; }
const char *pbd_h5log_partial_path(const pbd_h5log *log) { return log->partial; }

/* After the file is closed: set the attribute stopped of a closed file (a failed rename). */
static void mark_closed_file(const char *path, const char *why)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return;
    log_attr_reason(f, why);
    H5Fclose(f);
}

/* The busy section of a closing function: the file is renamed or removed inside it, so the
 * grace timer forgets it first; the section ends once log is freed. */
static void closing(pbd_h5log *log)
{
    log_enter(log);
    pbd_interrupt_keep_file(NULL, NULL);
}

static void closed(void) { pbd_interrupt_busy(0); }

pbd_status pbd_h5log_finish(pbd_h5log *log)
{
    closing(log);
    pbd_status st = finish(log);
    closed();
    return st;
}

static pbd_status finish(pbd_h5log *log)
{
    pbd_status st = log_flush_block(log);
    if (st == PBD_OK && (log_write_machine(log, 1) != 0 || log_write_param_hash(log) != 0 ||
                         log_write_progress(log, 1, "") != 0))
        st = pbd_error(PBD_EIO, "%s: cannot write the closing attributes", log->partial);
    if (st != PBD_OK) return stop(log, st); /* the steps so far, as partial */
    log_close_handles(log);
    if (log_check_and_trim(log->partial) < 0) {
        /* not readable: kept all the same (never deleted), under the partial name */
        st = pbd_error(PBD_EIO, "%s: expected a readable HDF5 file after closing, found none; "
                       "the file is kept", log->partial);
        log_free(log);
        return st;
    }
    log_remove_xdmf(log); /* an earlier run's sidecar never points into this file */
    if (rename(log->partial, log->path) != 0) {
        /* the data are complete: keep them as <run>.partial.h5 (complete = 1, and why) */
        int err = errno;
        char why[300];
        snprintf(why, sizeof why, "complete, but it could not be renamed to its final name: %s",
                 strerror(err));
        mark_closed_file(log->partial, why);
        const char *kept = rename(log->partial, log->stopped) == 0 ? log->stopped : log->partial;
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s; the complete run is kept in %s",
                       log->partial, log->path, strerror(err), kept);
        log_free(log);
        return st;
    }
    /* what an earlier, stopped run of this name left goes (the lock says no other process is
     * writing it) */
    remove(log->stopped);
    st = log_write_xdmf(log);
    if (st != PBD_OK) /* the data file stays as it is: complete, under its final name */
        st = pbd_error(st, "%s; the run's data are complete in %s", pbd_last_error(), log->path);
    log_free(log);
    return st;
}

pbd_status pbd_h5log_finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                    size_t kept_size, long *steps_kept)
{
    closing(log);
    pbd_status st = finish_partial(log, reason, kept, kept_size, steps_kept);
    closed();
    return st;
}

static pbd_status finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                 size_t kept_size, long *steps_kept)
{
    if (kept && kept_size) kept[0] = '\0';
    if (steps_kept) *steps_kept = -1;
    /* after a failed write nothing more is appended: the file stays as its last flush */
    pbd_status st = log->write_failed ? PBD_EIO : log_flush_block(log);
    char why[1024] = "";
    if (st != PBD_OK) snprintf(why, sizeof why, "%s", pbd_last_error());
    /* /frames of steps that never reached /series go (metadata only), and the attributes
     * say what the file holds and why it stopped: overwritten in place, no new space */
    log_trim_frames(log);
    log_write_machine(log, 1);
    char reason_line[2200]; /* cut to the attribute's 1024 bytes */
    snprintf(reason_line, sizeof reason_line, "%s%s%s", reason ? reason : "stopped",
             *why && (!reason || !strstr(reason, why)) ? "; then: " : "",
             *why && (!reason || !strstr(reason, why)) ? why : "");
    log_write_progress(log, 0, reason_line);
    log_close_handles(log);
    if (rename(log->partial, log->stopped) != 0) {
        int err = errno; /* kept under the temporary name: never deleted */
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s", log->partial, log->stopped,
                       strerror(err));
        long n = log_check_and_trim(log->partial);
        if (steps_kept) *steps_kept = n;
        if (n >= 0 && kept && kept_size) snprintf(kept, kept_size, "%s", log->partial);
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
    /* the program saw the stop and ends in order: its partial file's last writes are not cut
     * by the grace timer, which is for work that cannot see the flag (a second signal still
     * ends it at once). On a busy machine the writes can outlast the grace time, and the
     * timer's "not stopped" end would replace the run's own account
     * (faults/sigterm_inside_step). */
    pbd_interrupt_done();
    closing(log);
    st = stop(log, st);
    closed();
    return st;
}

static pbd_status stop(pbd_h5log *log, pbd_status st)
{
    char reason[1024], kept[4096], why[1024];
    int sig = pbd_interrupt_signal();
    if (st == PBD_EINTR && sig && strncmp(pbd_last_error(), "interrupted", 11) != 0)
        snprintf(reason, sizeof reason, "interrupted by %s after step %ld (%s)",
                 pbd_signal_name(sig), log->steps, pbd_last_error());
    else
        snprintf(reason, sizeof reason, "%s", pbd_last_error());
    long steps = -1;
    finish_partial(log, reason, kept, sizeof kept, &steps);
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
    closing(log);
    log_close_handles(log);
    remove(log->partial);
    log_free(log);
    closed();
}
