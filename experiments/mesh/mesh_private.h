/* Private to experiments/: the pieces the mesh loaders and topology share. */
#ifndef PBD_MESH_PRIVATE_H
#define PBD_MESH_PRIVATE_H

#include <stdio.h>

#include "pbd_mesh.h"

static inline void mesh_cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* One triangle's edge: a < b, fwd when the triangle runs a -> b, third the opposite
 * vertex. mesh_halves() returns 3 per triangle sorted by (a, b, t), or NULL. */
typedef struct mesh_half {
    int32_t a, b, t, fwd, third;
} mesh_half;
mesh_half *mesh_halves(const pbd_trimesh *m);

/* A text file read statement by statement: '#' starts a comment, blank lines are
 * skipped, and (for OBJ) a line ending in '\' continues on the next one. line is the
 * line on which the current statement starts; tok[0..n_tok) are its fields. */
typedef struct mesh_reader {
    FILE *f;
    const char *path;
    int line, next_line, continuation;
    char *raw, *buf;
    size_t raw_cap, buf_cap;
    char **tok;
    int n_tok, tok_cap;
    pbd_status error; /* why mesh_reader_next returned -1 */
} mesh_reader;

/* PBD_OK, or PBD_EINPUT "path: expected EXPECTED, found: strerror". */
pbd_status mesh_reader_open(mesh_reader *r, const char *path, const char *expected,
                            int continuation);
/* 1: a statement was read; 0: end of file; -1: a read error or out of memory (r->error,
 * pbd_error set). */
int mesh_reader_next(mesh_reader *r);
void mesh_reader_close(mesh_reader *r);

/* Whole-token numbers. 0 on success; -1 when not a number (or not finite, or out of
 * the int32 range for integers). */
int mesh_parse_double(const char *tok, double *v);
int mesh_parse_int(const char *tok, long *v);

/* Growable arrays for the loaders. */
int mesh_grow(void **p, int *cap, int need, size_t elem);

#endif
