/* Files written under a temporary name (DESIGN.md "HDF5 output", "Errors"): NAME is written
 * as NAME.partial-<pid> and renamed when complete, so that a reader never sees a half-written
 * file under the final name, and two processes writing the same NAME never mix their bytes
 * (the last rename wins whole). The temporary names are kept in a small registry that the
 * programs' SIGINT/SIGTERM handler empties with unlink(2), which is async-signal-safe: a
 * signal that arrives mid-write leaves no temporary file behind (experiments/cli/interrupt.c).
 * It lives in the lowest room that writes files (the mesh savers); every writer above uses it. */
#include "pbd_mesh.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATOMIC_SLOTS 16
#define ATOMIC_PATH 4200

static char slot_path[ATOMIC_SLOTS][ATOMIC_PATH];
static volatile sig_atomic_t slot_used[ATOMIC_SLOTS];

static int register_temp(const char *tmp)
{
    for (int i = 0; i < ATOMIC_SLOTS; i++)
        if (!slot_used[i]) {
            snprintf(slot_path[i], ATOMIC_PATH, "%s", tmp);
            atomic_signal_fence(memory_order_seq_cst); /* the path is complete before… */
            slot_used[i] = 1;                          /* …the handler may read it */
            return i;
        }
    return -1; /* more than ATOMIC_SLOTS at once: written, but not removed on a signal */
}

static void unregister_temp(pbd_atomic_file *a)
{
    if (a->slot >= 0) slot_used[a->slot] = 0; /* before the slot's path is reused */
    a->slot = -1;
}

void pbd_atomic_unlink_all(void)
{
    for (int i = 0; i < ATOMIC_SLOTS; i++)
        if (slot_used[i]) {
            unlink(slot_path[i]);
            slot_used[i] = 0;
        }
}

pbd_status pbd_atomic_begin(pbd_atomic_file *a, const char *path)
{
    a->slot = -1;
    a->tmp[0] = '\0';
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        snprintf(a->tmp, sizeof a->tmp, "%s.partial-%ld", path, (long)getpid()) >=
            (int)sizeof a->tmp)
        return pbd_error(PBD_EIO, "%s: expected a path shorter than %d bytes, found %zu", path,
                         (int)sizeof a->path - 32, strlen(path));
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return pbd_error(PBD_EIO, "%s: expected a file name, found a directory", path);
    a->slot = register_temp(a->tmp);
    return PBD_OK;
}

FILE *pbd_atomic_fopen(pbd_atomic_file *a, const char *path)
{
    if (pbd_atomic_begin(a, path) != PBD_OK) return NULL;
    errno = 0;
    FILE *f = fopen(a->tmp, "w");
    if (!f) {
        pbd_error(PBD_EIO, "%s: cannot write: %s", a->tmp, strerror(errno));
        pbd_atomic_abort(a);
    }
    return f;
}

pbd_status pbd_atomic_commit(pbd_atomic_file *a)
{
    if (rename(a->tmp, a->path) != 0) {
        int err = errno;
        pbd_atomic_abort(a);
        return pbd_error(PBD_EIO, "%s: cannot rename %s to it: %s", a->path, a->tmp,
                         strerror(err));
    }
    unregister_temp(a);
    return PBD_OK;
}

pbd_status pbd_atomic_fclose(pbd_atomic_file *a, FILE *f, int failed)
{
    errno = 0;
    failed |= ferror(f);
    int err = errno;
    if (fclose(f) != 0) {
        failed = 1;
        if (!err) err = errno;
    }
    if (failed) {
        pbd_atomic_abort(a);
        return pbd_error(PBD_EIO, "%s: cannot write: %s", a->path,
                         err ? strerror(err) : "write error");
    }
    return pbd_atomic_commit(a);
}

void pbd_atomic_abort(pbd_atomic_file *a)
{
    if (a->tmp[0]) remove(a->tmp);
    unregister_temp(a);
}
