/* Any file pbdlab reads may be hostile: before a program reads an HDF5 file it
 * asks pbd_h5_check_file, which
 *   - refuses anything but a regular file before open(2) could block (a FIFO, a device):
 *     the file is opened with O_NONBLOCK and fstat'ed;
 *   - reads the whole file in a child process: every object (H5Ovisit), every attribute of
 *     each, and every dataset up to CHECK_MAX_BYTES (the datasets' Fletcher-32 checksums
 *     and the metadata's checksums are verified on these reads). A child that ends with an
 *     HDF5 error names the file corrupt; one that crashes (libhdf5 1.10 dereferences some
 *     corrupt addresses of files without checksums, e.g. the version-1 B-trees of chunk
 *     indexes) or takes longer than CHECK_SECONDS does too, and the program goes on.
 * What the child read without error, the program then reads in-process. */
#include "log_private.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_SECONDS 30
#define CHECK_MAX_BYTES (512ull << 20)

int pbd_h5_regular_file(const char *path, char *why, size_t size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    int rc = fstat(fd, &sb);
    close(fd);
    if (rc != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(why, size, "%s: expected a regular HDF5 file, found %s", path,
                 rc != 0 ? "a file that cannot be stat'ed"
                 : S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ? "a directory"
                 : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "a special file");
        return -1;
    }
    return 0;
}

/* ---- the child: read everything ------------------------------------------------------ */

static herr_t read_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    (void)data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    size_t size = H5Tget_size(t);
    int bad = t < 0 || s < 0 || n < 0 || size == 0;
    if (!bad && (unsigned long long)n * size <= CHECK_MAX_BYTES) {
        void *buf = malloc((size_t)(n ? n : 1) * size + 1);
        /* the file's own type: variable-length data come back as pointers (leaked: the
         * child ends with _exit) */
        bad = !buf || H5Aread(a, t, buf) < 0;
    }
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return bad ? -1 : 0;
}

static herr_t read_object(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    (void)data;
    hid_t o = H5Oopen(root, name, H5P_DEFAULT);
    if (o < 0) return -1;
    hsize_t idx = 0;
    int bad = H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, read_attr, NULL) < 0;
    if (!bad && info->type == H5O_TYPE_DATASET) {
        hid_t t = H5Dget_type(o), s = H5Dget_space(o);
        hid_t mt = t >= 0 ? H5Tget_native_type(t, H5T_DIR_DEFAULT) : -1;
        hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        size_t size = mt >= 0 ? H5Tget_size(mt) : 0;
        bad = mt < 0 || n < 0 || size == 0;
        if (!bad && n > 0 && (unsigned long long)n * size <= CHECK_MAX_BYTES) {
            void *buf = malloc((size_t)n * size);
            bad = !buf || H5Dread(o, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
            free(buf);
        }
        if (mt >= 0) H5Tclose(mt);
        if (s >= 0) H5Sclose(s);
        if (t >= 0) H5Tclose(t);
    }
    H5Oclose(o);
    return bad ? -1 : 0;
}

static int read_everything(const char *path)
{
    log_quiet_hdf5();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 3;
    int bad = H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, read_object, NULL, H5O_INFO_BASIC) < 0;
    bad |= H5Fclose(f) < 0;
    return bad ? 3 : 0;
}

/* ---- the parent ----------------------------------------------------------------------- */

int pbd_h5_check_file(const char *path, char *why, size_t size)
{
    if (pbd_h5_regular_file(path, why, size) != 0) return -1;
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) { /* cannot fork: read it here, unguarded */
        if (read_everything(path) == 0) return 0;
        snprintf(why, size, "%s: expected a readable HDF5 file, found a corrupt or truncated "
                 "one (HDF5 cannot read it)", path);
        return -1;
    }
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(CHECK_SECONDS);
        _exit(read_everything(path));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(why, size, "%s: cannot check: %s", path, strerror(errno));
            return -1;
        }
        if (pbd_interrupt_signal()) kill(pid, SIGKILL); /* stopping: reaped next time round */
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(why, size, "%s: expected a readable HDF5 file, found one that HDF5 did not "
                 "finish reading in %d s (corrupt?)", path, CHECK_SECONDS);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        snprintf(why, size, "%s: expected a readable HDF5 file, found a corrupt or truncated "
                 "one (HDF5 cannot read it: a checksum, an address or a size is wrong)", path);
    else
        snprintf(why, size, "%s: expected a readable HDF5 file, found a corrupt one (reading it "
                 "crashed the HDF5 library: %s %d)", path,
                 WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return -1;
}
