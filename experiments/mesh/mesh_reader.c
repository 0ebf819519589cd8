/* Reading text mesh files statement by statement, and parsing their fields strictly:
 * a field is a number only when the whole of it is one, and only when it is finite. */
#include "mesh_private.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

pbd_status mesh_reader_open(mesh_reader *r, const char *path, const char *expected,
                            int continuation)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->next_line = 1;
    r->continuation = continuation;
    r->f = fopen(path, "r");
    if (!r->f)
        return pbd_error(PBD_EINPUT, "%s: expected %s, found: %s", path, expected,
                         strerror(errno));
    /* a device (/dev/zero) or a directory is refused before anything is read */
    struct stat sb;
    if (fstat(fileno(r->f), &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) {
        fclose(r->f);
        r->f = NULL;
        return pbd_error(PBD_EINPUT, "%s: expected %s in a regular file, found a %s", path,
                         expected, S_ISDIR(sb.st_mode) ? "directory" : "device or special file");
    }
    return PBD_OK;
}

void mesh_reader_close(mesh_reader *r)
{
    if (r->f) fclose(r->f);
    free(r->raw);
    free(r->buf);
    free(r->tok);
    memset(r, 0, sizeof *r);
}

static int append(mesh_reader *r, const char *s, size_t len, size_t *used)
{
    if (*used + len + 1 > r->buf_cap) {
        size_t cap = 2 * (*used + len + 1);
        char *b = realloc(r->buf, cap);
        if (!b) return -1;
        r->buf = b;
        r->buf_cap = cap;
    }
    memcpy(r->buf + *used, s, len);
    *used += len;
    r->buf[*used] = '\0';
    return 0;
}

static int split(mesh_reader *r)
{
    r->n_tok = 0;
    for (char *s = r->buf; *s;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f')
            *s++ = '\0';
        if (!*s) break;
        if (mesh_grow((void **)&r->tok, &r->tok_cap, r->n_tok + 1, sizeof *r->tok)) return -1;
        r->tok[r->n_tok++] = s;
        while (*s && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' ||
                       *s == '\f'))
            s++;
    }
    return 0;
}

int mesh_reader_next(mesh_reader *r)
{
    for (;;) {
        size_t used = 0;
        int started = 0;
        if (r->buf) r->buf[0] = '\0';
        for (;;) {
            errno = 0;
            ssize_t len = getline(&r->raw, &r->raw_cap, r->f);
            if (len < 0 && ferror(r->f)) {
                r->error = pbd_error(PBD_EINPUT, "%s:%d: expected a readable text file, found "
                                     "a read error: %s", r->path, r->next_line, strerror(errno));
                return -1;
            }
            if (len < 0) break;
            if (!started) r->line = r->next_line;
            started = 1;
            r->next_line++;
            const char *nul = memchr(r->raw, '\0', (size_t)len);
            if (nul) { /* text with a NUL byte would be cut short silently */
                r->error = pbd_error(PBD_EINPUT, "%s:%d: expected text, found a NUL byte at "
                                     "column %ld", r->path, r->next_line - 1,
                                     (long)(nul - r->raw) + 1);
                return -1;
            }
            char *hash = memchr(r->raw, '#', (size_t)len);
            if (hash) len = hash - r->raw;
            while (len > 0 && (r->raw[len - 1] == '\n' || r->raw[len - 1] == '\r')) len--;
            int more = r->continuation && !hash && len > 0 && r->raw[len - 1] == '\\';
            if (more) r->raw[--len] = ' ';
            if (append(r, r->raw, (size_t)len, &used) || append(r, " ", 1, &used)) {
                r->error = pbd_error(PBD_ENOMEM, "%s:%d: out of memory reading a line", r->path,
                                     r->line);
                return -1;
            }
            if (!more) break;
        }
        if (!started) return 0;
        if (split(r)) {
            r->error = pbd_error(PBD_ENOMEM, "%s:%d: out of memory splitting a line", r->path,
                                 r->line);
            return -1;
        }
        if (r->n_tok > 0) return 1;
    }
}

int mesh_parse_double(const char *tok, double *v)
{
    char *end = NULL;
    errno = 0;
    double d = strtod(tok, &end);
    if (end == tok || *end || !isfinite(d)) return -1;
    *v = d;
    return 0;
}

int mesh_parse_int(const char *tok, long *v)
{
    char *end = NULL;
    errno = 0;
    long i = strtol(tok, &end, 10);
    if (end == tok || *end || errno || i < -2147483647L || i > 2147483647L) return -1;
    *v = i;
    return 0;
}

int mesh_grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return 0;
    int c = *cap > 0 ? *cap : 16;
    while (c < need) {
        if (c > 0x3fffffff) return -1;
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}
