/* TetGen .node / .ele: a tetrahedral mesh in two files with the same base name.
 *   NAME.node   <#points> <dimension = 3> [<#attributes> [<boundary marker 0|1>]]
 *               then per point: <number> <x> <y> <z> [attributes] [marker]
 *   NAME.ele    <#tets> [<nodes per tet 4|10> [<#attributes>]]
 *               then per tet: <number> <n1> <n2> <n3> <n4> [6 more nodes] [attributes]
 * Points are numbered consecutively from 0 or 1 (the first point says which) and the .ele
 * refers to them by those numbers. Attributes, markers and the 6 mid-edge nodes of
 * quadratic tets are read and ignored. Tets of negative volume are re-oriented; tets of
 * zero volume are an error. */
#include "mesh_private.h"

#include <stdlib.h>
#include <string.h>

/* Integer header field k (1-based) or a default when absent. */
static pbd_status header_int(const mesh_reader *r, int k, const char *what, long lo, long hi,
                             long dflt, long *v)
{
    if (k >= r->n_tok + 1) {
        *v = dflt;
        return PBD_OK;
    }
    const char *tok = r->tok[k - 1];
    if (mesh_parse_int(tok, v) || *v < lo || *v > hi) {
        if (hi == lo)
            return pbd_error(PBD_EINPUT, "%s:%d: expected %s %ld in the header, found '%.40s'",
                             r->path, r->line, what, lo, tok);
        return pbd_error(PBD_EINPUT, "%s:%d: expected %s (an integer in [%ld, %ld]) in the header, "
                         "found '%.40s'", r->path, r->line, what, lo, hi, tok);
    }
    return PBD_OK;
}

/* The running number of record i: the first one fixes the base (0 or 1). */
static pbd_status record_number(const mesh_reader *r, const char *what, int i, int *base)
{
    long num;
    if (mesh_parse_int(r->tok[0], &num))
        return pbd_error(PBD_EINPUT, "%s:%d: expected the %s number (an integer), found '%.40s'",
                         r->path, r->line, what, r->tok[0]);
    if (i == 0) {
        if (num != 0 && num != 1)
            return pbd_error(PBD_EINPUT, "%s:%d: expected the first %s numbered 0 or 1, found %ld",
                             r->path, r->line, what, num);
        *base = (int)num;
    } else if (num != *base + i) {
        return pbd_error(PBD_EINPUT, "%s:%d: expected %s number %d (numbered consecutively), "
                         "found %ld", r->path, r->line, what, *base + i, num);
    }
    return PBD_OK;
}

/* The next record of a list of `count`; running out is a count mismatch. */
static pbd_status next_record(mesh_reader *r, const char *what, int i, int count,
                              int header_line)
{
    int got = mesh_reader_next(r);
    if (got < 0) return r->error;
    if (got == 0)
        return pbd_error(PBD_EINPUT, "%s:%d: expected %d %s (as the header on line %d says), "
                         "found %d", r->path, r->next_line > 1 ? r->next_line - 1 : 1, count,
                         what, header_line, i);
    return PBD_OK;
}

static pbd_status expect_end(mesh_reader *r, const char *what, int count, int header_line)
{
    int got = mesh_reader_next(r);
    if (got < 0) return r->error;
    if (got == 1)
        return pbd_error(PBD_EINPUT, "%s:%d: expected %d %s (as the header on line %d says) and "
                         "then the end of the file, found more: '%.40s'", r->path, r->line, count,
                         what, header_line, r->tok[0]);
    return PBD_OK;
}

static pbd_status read_header(mesh_reader *r, const char *what)
{
    int got = mesh_reader_next(r);
    if (got < 0) return r->error;
    if (got == 0)
        return pbd_error(PBD_EINPUT, "%s:%d: expected a header line (number of %s, ...), found "
                         "%s", r->path, r->next_line > 1 ? r->next_line - 1 : 1, what,
                         r->next_line > 1 ? "only blank lines and comments" : "an empty file");
    return PBD_OK;
}

static pbd_status read_nodes(mesh_reader *r, pbd_tetmesh *m, int *base)
{
    long n, dim, n_attr, n_mark;
    pbd_status st = read_header(r, "points");
    if (st == PBD_OK && r->n_tok > 4)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected a header of at most 4 fields (#points, "
                       "dimension, #attributes, #markers), found %d", r->path, r->line, r->n_tok);
    if (st == PBD_OK) st = header_int(r, 1, "the number of points", 4, 100000000, 0, &n);
    if (st == PBD_OK && r->n_tok < 2)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected the dimension 3 after the number of points, "
                       "found the end of the line", r->path, r->line);
    if (st == PBD_OK) st = header_int(r, 2, "dimension", 3, 3, 3, &dim);
    if (st == PBD_OK) st = header_int(r, 3, "the number of attributes", 0, 1000, 0, &n_attr);
    if (st == PBD_OK) st = header_int(r, 4, "the boundary-marker flag", 0, 1, 0, &n_mark);
    if (st != PBD_OK) return st;
    int header_line = r->line, fields = 4 + (int)n_attr + (int)n_mark;
    if (pbd_tetmesh_alloc(m, (int)n, 0) != PBD_OK) return PBD_ENOMEM;
    static const char *const axis[] = {"x coordinate", "y coordinate", "z coordinate"};
    for (int i = 0; i < n; i++) {
        if ((st = next_record(r, "points", i, (int)n, header_line)) != PBD_OK) return st;
        if (r->n_tok != fields)
            return pbd_error(PBD_EINPUT, "%s:%d: expected %d fields (number, x, y, z, %ld "
                             "attribute(s), %ld boundary marker(s)), found %d", r->path, r->line, fields,
                             n_attr, n_mark, r->n_tok);
        if ((st = record_number(r, "point", i, base)) != PBD_OK) return st;
        for (int k = 1; k < fields; k++) {
            double v;
            if (mesh_parse_double(r->tok[k], &v))
                return pbd_error(PBD_EINPUT, "%s:%d: expected a finite number for the point's %s, "
                                 "found '%.40s'", r->path, r->line,
                                 k <= 3 ? axis[k - 1] : k <= 3 + n_attr ? "attribute" : "boundary marker",
                                 r->tok[k]);
            if (k <= 3) m->x[3 * i + k - 1] = v;
        }
    }
    return expect_end(r, "points", (int)n, header_line);
}

static pbd_status read_elements(mesh_reader *r, pbd_tetmesh *m, int node_base,
                                const char *node_path)
{
    long n, corners, n_attr;
    pbd_status st = read_header(r, "tetrahedra");
    if (st == PBD_OK && r->n_tok > 3)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected a header of at most 3 fields (#tets, nodes "
                       "per tet, #attributes), found %d", r->path, r->line, r->n_tok);
    if (st == PBD_OK) st = header_int(r, 1, "the number of tetrahedra", 1, 100000000, 0, &n);
    if (st == PBD_OK) st = header_int(r, 2, "the nodes per tetrahedron", 4, 10, 4, &corners);
    if (st == PBD_OK && corners != 4 && corners != 10)
        st = pbd_error(PBD_EINPUT, "%s:%d: expected 4 or 10 nodes per tetrahedron in the header, "
                       "found %ld", r->path, r->line, corners);
    if (st == PBD_OK) st = header_int(r, 3, "the number of attributes", 0, 1000, 0, &n_attr);
    if (st != PBD_OK) return st;
    int header_line = r->line, fields = 1 + (int)corners + (int)n_attr, base = 0;
    free(m->tet);
    m->tet = malloc(4 * (size_t)n * sizeof *m->tet);
    if (!m->tet) return pbd_error(PBD_ENOMEM, "%s: out of memory for %ld tets", r->path, n);
    for (int i = 0; i < n; i++) {
        if ((st = next_record(r, "tetrahedra", i, (int)n, header_line)) != PBD_OK) return st;
        if (r->n_tok != fields)
            return pbd_error(PBD_EINPUT, "%s:%d: expected %d fields (number, %ld nodes, %ld "
                             "attribute(s)), found %d", r->path, r->line, fields, corners, n_attr,
                             r->n_tok);
        if ((st = record_number(r, "tetrahedron", i, &base)) != PBD_OK) return st;
        int32_t *t = m->tet + 4 * (size_t)i;
        for (int k = 1; k <= corners; k++) {
            long v;
            if (mesh_parse_int(r->tok[k], &v))
                return pbd_error(PBD_EINPUT, "%s:%d: expected a node number (an integer), found "
                                 "'%.40s'", r->path, r->line, r->tok[k]);
            if (v < node_base || v >= node_base + m->n_vertices)
                return pbd_error(PBD_EINPUT, "%s:%d: expected a node number in [%d, %d] (the "
                                 "points of %s), found out-of-range node %ld", r->path, r->line,
                                 node_base, node_base + m->n_vertices - 1, node_path, v);
            if (k <= 4) t[k - 1] = (int32_t)(v - node_base);
        }
        for (int k = 1 + (int)corners; k < fields; k++) {
            double a;
            if (mesh_parse_double(r->tok[k], &a))
                return pbd_error(PBD_EINPUT, "%s:%d: expected a finite number for the "
                                 "tetrahedron's attribute, found '%.40s'", r->path, r->line,
                                 r->tok[k]);
        }
        m->n_tets = i + 1;
        const double *x = m->x;
        if (pbd_tet_is_degenerate(x + 3 * t[0], x + 3 * t[1], x + 3 * t[2], x + 3 * t[3]))
            return pbd_error(PBD_EINPUT, "%s:%d: expected a tetrahedron of non-zero volume, found "
                             "a degenerate (zero-volume) tetrahedron of nodes %s %s %s %s",
                             r->path, r->line, r->tok[1], r->tok[2], r->tok[3], r->tok[4]);
    }
    return expect_end(r, "tetrahedra", (int)n, header_line);
}

pbd_status pbd_tetmesh_load_tetgen(const char *path, pbd_tetmesh *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(path);
    int has_ext = len >= 5 && strcmp(path + len - 5, ".node") == 0;
    if (len >= 4 && strcmp(path + len - 4, ".ele") == 0)
        return pbd_error(PBD_EINPUT, "%s: expected the TetGen .node file (the .ele beside it is "
                         "found from its name), found an .ele file", path);
    size_t stem = has_ext ? len - 5 : len;
    char *node = malloc(stem + 6), *ele = malloc(stem + 5);
    if (!node || !ele) {
        free(node);
        free(ele);
        return pbd_error(PBD_ENOMEM, "%s: out of memory", path);
    }
    memcpy(node, path, stem);
    strcpy(node + stem, ".node");
    memcpy(ele, path, stem);
    strcpy(ele + stem, ".ele");

    pbd_tetmesh m = {0};
    mesh_reader r;
    int base = 0;
    char expected[256];
    pbd_status st = mesh_reader_open(&r, node, "a readable TetGen .node file", 0);
    if (st == PBD_OK) {
        st = read_nodes(&r, &m, &base);
        mesh_reader_close(&r);
    }
    if (st == PBD_OK) {
        snprintf(expected, sizeof expected, "the TetGen .ele file beside %.200s", node);
        st = mesh_reader_open(&r, ele, expected, 0);
        if (st == PBD_OK) {
            st = read_elements(&r, &m, base, node);
            mesh_reader_close(&r);
        }
    }
    free(node);
    free(ele);
    if (st != PBD_OK) {
        pbd_tetmesh_free(&m);
        return st;
    }
    pbd_tetmesh_orient(&m); /* every tet of positive volume */
    *out = m;
    return PBD_OK;
}

pbd_status pbd_tetmesh_save_tetgen(const pbd_tetmesh *m, const char *path, const char *comment)
{
    size_t len = strlen(path);
    size_t stem = len >= 5 && strcmp(path + len - 5, ".node") == 0 ? len - 5 : len;
    char name[2][4096];
    if (stem + 10 > sizeof name[0])
        return pbd_error(PBD_EIO, "%s: expected a shorter path, found %zu characters", path, len);
    snprintf(name[0], sizeof name[0], "%.*s.node", (int)stem, path);
    snprintf(name[1], sizeof name[1], "%.*s.ele", (int)stem, path);
    /* both files are written before either is renamed: the pair changes together */
    pbd_atomic_file a[2];
    for (int file = 0; file < 2; file++) {
        FILE *f = pbd_atomic_fopen(&a[file], name[file]);
        if (!f) {
            if (file == 1) pbd_atomic_abort(&a[0]);
            return PBD_EIO;
        }
        fprintf(f, "# %s (pbdlab)\n", comment ? comment : "pbdlab tet mesh");
        if (file == 0) {
            fprintf(f, "%d 3 0 0\n", m->n_vertices);
            for (int i = 0; i < m->n_vertices; i++)
                fprintf(f, "%d %.17g %.17g %.17g\n", i + 1, m->x[3 * i], m->x[3 * i + 1],
                        m->x[3 * i + 2]);
        } else {
            fprintf(f, "%d 4 0\n", m->n_tets);
            for (int t = 0; t < m->n_tets; t++)
                fprintf(f, "%d %d %d %d %d\n", t + 1, m->tet[4 * t] + 1, m->tet[4 * t + 1] + 1,
                        m->tet[4 * t + 2] + 1, m->tet[4 * t + 3] + 1);
        }
        int failed = ferror(f);
        if (fclose(f) != 0 || failed) {
            if (file == 1) pbd_atomic_abort(&a[0]);
            pbd_atomic_abort(&a[file]);
            return pbd_error(PBD_EIO, "%s: cannot write", name[file]);
        }
    }
    pbd_status st = pbd_atomic_commit(&a[0]);
    if (st == PBD_OK) st = pbd_atomic_commit(&a[1]);
    else pbd_atomic_abort(&a[1]);
    return st;
}
