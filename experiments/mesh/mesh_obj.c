/* Wavefront OBJ: vertices and faces of a polygonal surface.
 *   v x y z [w]          a vertex (w, the rational weight, is read and ignored)
 *   f v1 v2 v3 ...       a face; each vi is i, i/t, i//n or i/t/n; i = 1.. counts from the
 *                        first vertex, i = -1.. back from the last one defined so far
 * A face of more than 3 vertices is split into a fan (v1, vk, vk+1). Texture coordinates,
 * normals, groups, smoothing and materials are read past. Every problem is one line
 * "file:line: expected ..., found ..." with status PBD_EINPUT. */
#include "mesh_private.h"

#include <stdlib.h>
#include <string.h>

/* Statements of the OBJ format that carry nothing a simulation uses. */
static const char *const ignored[] = {
    "vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib", "l", "p", "mg", "lod", "maplib",
    "usemap", "bevel", "c_interp", "d_interp", "shadow_obj", "trace_obj", "ctech", "stech",
    "cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv",
    "sp", "end", "con", "call", "csh", NULL};

static int is_ignored(const char *kw)
{
    for (const char *const *k = ignored; *k; k++)
        if (strcmp(*k, kw) == 0) return 1;
    return 0;
}

typedef struct obj_build {
    double *x;
    int nv, cap_x;
    int32_t *tri, *line;
    int nt, cap_t, cap_l;
    int32_t *face;
    int cap_f;
} obj_build;

static void build_free(obj_build *b)
{
    free(b->x);
    free(b->tri);
    free(b->line);
    free(b->face);
}

static pbd_status oom(const mesh_reader *r)
{
    return pbd_error(PBD_ENOMEM, "%s:%d: out of memory", r->path, r->line);
}

static pbd_status read_vertex(mesh_reader *r, obj_build *b)
{
    static const char *const axis[] = {"x", "y", "z", "w"};
    if (r->n_tok < 4 || r->n_tok > 5)
        return pbd_error(PBD_EINPUT, "%s:%d: expected 3 or 4 numbers after 'v' (x y z [w]), "
                         "found %d", r->path, r->line, r->n_tok - 1);
    double c[4];
    for (int k = 1; k < r->n_tok; k++)
        if (mesh_parse_double(r->tok[k], &c[k - 1]))
            return pbd_error(PBD_EINPUT, "%s:%d: expected a finite number for the vertex's %s "
                             "coordinate, found '%.40s'", r->path, r->line, axis[k - 1],
                             r->tok[k]);
    if (b->nv >= 0x7fffffff / 3 ||
        mesh_grow((void **)&b->x, &b->cap_x, 3 * (b->nv + 1), sizeof *b->x))
        return oom(r);
    memcpy(b->x + 3 * (size_t)b->nv, c, 3 * sizeof *c);
    b->nv++;
    return PBD_OK;
}

/* One vertex reference i, i/t, i//n or i/t/n; *v receives the 0-based vertex. */
static pbd_status read_ref(const mesh_reader *r, const obj_build *b, const char *tok, int *v)
{
    char part[3][64];
    int n_part = 0;
    const char *s = tok;
    for (;;) {
        const char *slash = strchr(s, '/');
        size_t len = slash ? (size_t)(slash - s) : strlen(s);
        if (n_part == 3 || len >= sizeof part[0]) n_part = 4; /* malformed */
        if (n_part == 4) break;
        memcpy(part[n_part], s, len);
        part[n_part++][len] = '\0';
        if (!slash) break;
        s = slash + 1;
    }
    long i = 0, tn;
    int ok = n_part >= 1 && n_part <= 3 && mesh_parse_int(part[0], &i) == 0;
    if (ok && n_part == 2) ok = mesh_parse_int(part[1], &tn) == 0;               /* i/t */
    if (ok && n_part == 3)                                                        /* i//n, i/t/n */
        ok = (part[1][0] == '\0' || mesh_parse_int(part[1], &tn) == 0) &&
             mesh_parse_int(part[2], &tn) == 0;
    if (!ok)
        return pbd_error(PBD_EINPUT, "%s:%d: expected a vertex reference (i, i/t, i//n or "
                         "i/t/n with integers), found '%.40s'", r->path, r->line, tok);
    if (b->nv == 0)
        return pbd_error(PBD_EINPUT, "%s:%d: expected a face after its vertices, found vertex "
                         "reference '%.40s' before any vertex ('v') is defined", r->path,
                         r->line, tok);
    long resolved = i > 0 ? i - 1 : b->nv + i; /* negative: counts back from the last vertex */
    if (i == 0 || resolved < 0 || resolved >= b->nv)
        return pbd_error(PBD_EINPUT, "%s:%d: expected a vertex index in 1..%d or -%d..-1 (the "
                         "vertices defined so far), found out-of-range index %ld", r->path,
                         r->line, b->nv, b->nv, i);
    *v = (int)resolved;
    return PBD_OK;
}

static pbd_status read_face(mesh_reader *r, obj_build *b)
{
    int n = r->n_tok - 1;
    if (n < 3)
        return pbd_error(PBD_EINPUT, "%s:%d: expected at least 3 vertices in a face, found %d",
                         r->path, r->line, n);
    if (mesh_grow((void **)&b->face, &b->cap_f, n, sizeof *b->face)) return oom(r);
    for (int k = 0; k < n; k++) {
        int v = 0;
        pbd_status st = read_ref(r, b, r->tok[k + 1], &v);
        if (st != PBD_OK) return st;
        b->face[k] = v;
    }
    int add = n - 2;
    if (b->nt > 0x7fffffff / 3 - add ||
        mesh_grow((void **)&b->tri, &b->cap_t, 3 * (b->nt + add), sizeof *b->tri) ||
        mesh_grow((void **)&b->line, &b->cap_l, b->nt + add, sizeof *b->line))
        return oom(r);
    for (int k = 1; k + 1 < n; k++) { /* fan triangulation */
        int32_t *t = b->tri + 3 * (size_t)b->nt;
        t[0] = b->face[0];
        t[1] = b->face[k];
        t[2] = b->face[k + 1];
        b->line[b->nt++] = r->line;
    }
    return PBD_OK;
}

pbd_status pbd_trimesh_load_obj(const char *path, int require, pbd_trimesh *out)
{
    memset(out, 0, sizeof *out);
    mesh_reader r;
    pbd_status st = mesh_reader_open(&r, path, "a readable Wavefront OBJ file", 1);
    if (st != PBD_OK) return st;
    obj_build b = {0};
    int got, last_line = 0;
    while ((got = mesh_reader_next(&r)) == 1) {
        last_line = r.line;
        const char *kw = r.tok[0];
        if (strcmp(kw, "v") == 0)
            st = read_vertex(&r, &b);
        else if (strcmp(kw, "f") == 0 || strcmp(kw, "fo") == 0)
            st = read_face(&r, &b);
        else if (!is_ignored(kw))
            st = pbd_error(PBD_EINPUT, "%s:%d: expected an OBJ statement (v, f, vt, vn, o, g, s, "
                           "usemtl, mtllib, ...), found '%.40s'", path, r.line, kw);
        if (st != PBD_OK) break;
    }
    int lines = r.next_line - 1;
    if (got < 0) st = r.error;
    mesh_reader_close(&r);
    if (st == PBD_OK && b.nv == 0 && b.nt == 0)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected vertices ('v') and faces ('f'), found %s",
                       path, lines > 0 ? lines : 1,
                       lines > 0 ? "no statement (only blank lines and comments)"
                                 : "an empty file");
    if (st == PBD_OK && b.nt == 0)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected at least one face ('f'), found only %d "
                       "vertices", path, last_line, b.nv);
    if (st == PBD_OK) {
        out->n_vertices = b.nv;
        out->x = b.x;
        out->n_triangles = b.nt;
        out->tri = b.tri;
        out->tri_line = b.line;
        out->source = malloc(strlen(path) + 1);
        free(b.face);
        if (!out->source) {
            pbd_trimesh_free(out);
            return pbd_error(PBD_ENOMEM, "%s: out of memory", path);
        }
        strcpy(out->source, path);
        st = pbd_trimesh_require(out, require);
        if (st != PBD_OK) pbd_trimesh_free(out);
        return st;
    }
    build_free(&b);
    return st;
}

pbd_status pbd_trimesh_save_obj(const pbd_trimesh *m, const char *path, const char *comment)
{
    pbd_atomic_file a;
    FILE *f = pbd_atomic_fopen(&a, path);
    if (!f) return PBD_EIO;
    fprintf(f, "# %s\n# %d vertices, %d triangles (pbdlab)\n", comment ? comment : "pbdlab mesh",
            m->n_vertices, m->n_triangles);
    for (int i = 0; i < m->n_vertices; i++)
        fprintf(f, "v %.17g %.17g %.17g\n", m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
    for (int t = 0; t < m->n_triangles; t++)
        fprintf(f, "f %d %d %d\n", m->tri[3 * t] + 1, m->tri[3 * t + 1] + 1, m->tri[3 * t + 2] + 1);
    return pbd_atomic_fclose(&a, f, 0);
}
