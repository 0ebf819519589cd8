/* Mesh input and generators: every good format variant loads with the right counts and
 * coordinates, every bad file under tests/data gives one error line naming file:line and
 * the problem, and the generators' meshes have the topology closed-form counts predict.
 * The scenes built from meshes are suite `mesh_scenes` (tests/test_mesh_scenes.c). */
#include "tests.h"
#include "mesh_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- good files -------------------------------------------------------------------- */

static void test_obj_good_square(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(DATA "good_square.obj", PBD_MESH_CLOTH, &m),
                          PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 4);
    CU_ASSERT_EQUAL(m.n_triangles, 2);
    const double x[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    for (int i = 0; i < 12; i++) CU_ASSERT_EQUAL(m.x[i], x[i]);
    const int32_t tri[6] = {0, 1, 2, 0, 2, 3}, line[2] = {17, 18};
    for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(m.tri[i], tri[i]);
    for (int i = 0; i < 2; i++) CU_ASSERT_EQUAL(m.tri_line[i], line[i]);
    pbd_trimesh_free(&m);
    CU_ASSERT_PTR_NULL(m.x);
}

static void test_obj_good_crlf(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(DATA "good_crlf.obj", PBD_MESH_CLOTH, &m), PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 3);
    CU_ASSERT_EQUAL(m.n_triangles, 1);
    CU_ASSERT_EQUAL(m.x[3], 2.0);
    CU_ASSERT_EQUAL(m.x[7], 2.0);
    CU_ASSERT_EQUAL(m.tri[2], 2);
    pbd_trimesh_free(&m);
}

/* i/t, i//n, i/t/n, negative indices, polygons (fans) and a continued line. */
static void test_obj_good_forms(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(DATA "good_forms.obj", PBD_MESH_CLOTH, &m),
                          PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 14);
    CU_ASSERT_EQUAL_FATAL(m.n_triangles, 8);
    const int32_t tri[24] = {0, 1, 2, 0, 2,  3,  1, 4,  5, 1, 5,  2,
                             7, 8, 6, 9, 10, 11, 9, 11, 12, 9, 12, 13};
    const int32_t line[8] = {12, 12, 16, 17, 22, 29, 29, 29};
    for (int i = 0; i < 24; i++) CU_ASSERT_EQUAL(m.tri[i], tri[i]);
    for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(m.tri_line[i], line[i]);
    CU_ASSERT_EQUAL(m.x[3 * 8 + 0], 2.5); /* v 2.5 2 0, the ninth vertex */
    CU_ASSERT_EQUAL(m.x[3 * 8 + 1], 2.0);
    CU_ASSERT_EQUAL(m.x[3 * 13 + 0], 3.5);
    pbd_trimesh_free(&m);
}

/* Degenerate triangles and non-manifold edges are reported, not fatal, when not required. */
static void test_obj_reported_without_requirement(void)
{
    pbd_trimesh m;
    pbd_trimesh_report r;
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(DATA "bad_degenerate.obj", 0, &m), PBD_OK);
    CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &r), PBD_OK);
    CU_ASSERT_EQUAL(r.n_degenerate, 1);
    pbd_trimesh_free(&m);
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(DATA "bad_nonmanifold.obj", 0, &m), PBD_OK);
    CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &r), PBD_OK);
    CU_ASSERT_EQUAL(r.n_nonmanifold_edges, 1);
    CU_ASSERT_EQUAL(r.n_degenerate, 0);
    pbd_trimesh_free(&m);
}

static double tets_volume(const pbd_tetmesh *m, double *min_v)
{
    double sum = 0.0;
    *min_v = INFINITY;
    for (int t = 0; t < m->n_tets; t++) {
        const int32_t *v = m->tet + 4 * t;
        double V = pbd_tet_volume(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2],
                                  m->x + 3 * v[3]);
        sum += V;
        if (V < *min_v) *min_v = V;
    }
    return sum;
}

static void test_tetgen_good(void)
{
    pbd_tetmesh m;
    double vmin;
    /* 1-based, attributes, markers, comments, blank lines; re-oriented tets */
    CU_ASSERT_EQUAL_FATAL(pbd_tetmesh_load_tetgen(DATA "good_cube.node", &m), PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 8);
    CU_ASSERT_EQUAL(m.n_tets, 5);
    CU_ASSERT_EQUAL(m.x[3 * 7 + 0], 1.0);
    CU_ASSERT_EQUAL(m.x[3 * 7 + 1], 1.0);
    CU_ASSERT_EQUAL(m.x[3 * 7 + 2], 1.0);
    CU_ASSERT_EQUAL(m.x[3 * 2 + 1], 1.0);
    CU_ASSERT_DOUBLE_EQUAL(tets_volume(&m, &vmin), 1.0, 1e-14);
    CU_ASSERT(vmin > 0.0);
    /* the first tet is 1 4 6 7 in the file (0-based 0 3 5 6), of negative volume: flipped */
    CU_ASSERT(m.tet[0] == 0 && m.tet[1] == 3 && m.tet[2] == 6 && m.tet[3] == 5);
    pbd_tetmesh_free(&m);
    /* 0-based, short headers, name without the extension */
    CU_ASSERT_EQUAL_FATAL(pbd_tetmesh_load_tetgen(DATA "good_zero", &m), PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 4);
    CU_ASSERT_EQUAL(m.n_tets, 1);
    CU_ASSERT_DOUBLE_EQUAL(tets_volume(&m, &vmin), 4.0, 1e-14);
    CU_ASSERT(m.tet[0] == 0 && m.tet[1] == 1 && m.tet[2] == 2 && m.tet[3] == 3);
    pbd_tetmesh_free(&m);
    /* quadratic tets: the 4 corners are kept */
    CU_ASSERT_EQUAL_FATAL(pbd_tetmesh_load_tetgen(DATA "good_quadratic.node", &m), PBD_OK);
    CU_ASSERT_EQUAL(m.n_vertices, 10);
    CU_ASSERT_EQUAL(m.n_tets, 1);
    CU_ASSERT(m.tet[0] == 0 && m.tet[1] == 1 && m.tet[2] == 2 && m.tet[3] == 3);
    CU_ASSERT_DOUBLE_EQUAL(tets_volume(&m, &vmin), 1.0 / 6.0, 1e-15);
    pbd_tetmesh_free(&m);
}

/* ---- bad files --------------------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    int require;
    int line;
    const char *words[4];
} bad_case;

static const bad_case bad_obj[] = {
    {"bad_index_range.obj", PBD_MESH_CLOTH, 6, {"out-of-range", "found out-of-range index 9", "1..4"}},
    {"bad_index_zero.obj", PBD_MESH_CLOTH, 4, {"out-of-range index 0", NULL}},
    {"bad_negative_range.obj", PBD_MESH_CLOTH, 5, {"out-of-range index -4", "-3..-1", NULL}},
    {"bad_nonnumeric.obj", PBD_MESH_CLOTH, 2, {"finite number", "'abc'", "y coordinate"}},
    {"bad_nan.obj", PBD_MESH_CLOTH, 3, {"finite number", "'nan'", "x coordinate"}},
    {"bad_inf.obj", PBD_MESH_CLOTH, 3, {"finite number", "'inf'", "z coordinate"}},
    {"bad_face_too_few.obj", PBD_MESH_CLOTH, 4, {"at least 3 vertices", "found 2", NULL}},
    {"bad_face_before_vertex.obj", PBD_MESH_CLOTH, 2, {"before any vertex", "'1'", NULL}},
    {"bad_degenerate.obj", PBD_MESH_CLOTH, 6, {"non-zero area", "zero-area", "1 2 4"}},
    {"bad_degenerate_repeated.obj", PBD_MESH_CLOTH, 5, {"zero-area", "1 1 3", NULL}},
    {"bad_nonmanifold.obj", PBD_MESH_CLOTH, 9, {"non-manifold edge 1-2", "3 triangles", NULL}},
    {"bad_empty.obj", PBD_MESH_CLOTH, 1, {"an empty file", "faces", NULL}},
    {"bad_comments_only.obj", PBD_MESH_CLOTH, 3, {"no statement", NULL}},
    {"bad_no_faces.obj", PBD_MESH_CLOTH, 3, {"at least one face", "3 vertices", NULL}},
    {"bad_vertex_fields.obj", PBD_MESH_CLOTH, 2, {"3 or 4 numbers", "found 2", NULL}},
    {"bad_reference.obj", PBD_MESH_CLOTH, 4, {"vertex reference", "'2/x'", NULL}},
    {"bad_statement.obj", PBD_MESH_CLOTH, 4, {"OBJ statement", "'1.0'", NULL}},
    {"bad_misoriented.obj", PBD_MESH_CLOSED_SURFACE, 9, {"consistently oriented", "edge", NULL}},
    /* a good cloth is a bad balloon */
    {"good_square.obj", PBD_MESH_CLOSED_SURFACE, 17, {"closed surface", "boundary edge", NULL}},
};

static void test_obj_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_obj / sizeof bad_obj[0]; i++) {
        const bad_case *c = &bad_obj[i];
        char path[256];
        snprintf(path, sizeof path, DATA "%s", c->file);
        pbd_trimesh m;
        memset(&m, 0x5a, sizeof m);
        pbd_status st = pbd_trimesh_load_obj(path, c->require, &m);
        CU_ASSERT_EQUAL(st, PBD_EINPUT);
        CU_ASSERT(m.x == NULL && m.tri == NULL && m.n_vertices == 0 && m.n_triangles == 0);
        if (st != PBD_EINPUT) {
            fprintf(stderr, "\n    %s loaded with status %d", c->file, st);
            pbd_trimesh_free(&m);
            continue;
        }
        check_message(path, c->line, c->words);
    }
    pbd_trimesh m;
    CU_ASSERT_EQUAL(pbd_trimesh_load_obj(DATA "no_such_file.obj", 0, &m), PBD_EINPUT);
    const char *const words[] = {"readable", "No such file", NULL};
    check_message(DATA "no_such_file.obj: expected", 0, words);
}

static const bad_case bad_tetgen[] = {
    {"bad_node_count.node", 0, 5, {"expected 5 points", "line 1", "found 4"}},
    {"bad_node_extra.node", 0, 6, {"4 points", "end of the file", "'5'"}},
    {"bad_ele_count.ele", 0, 2, {"expected 2 tetrahedra", "found 1", NULL}},
    {"bad_ele_range.ele", 0, 2, {"out-of-range node 5", "[1, 4]", "bad_ele_range.node"}},
    {"bad_node_nan.node", 0, 4, {"finite number", "'nan'", NULL}},
    {"bad_node_text.node", 0, 5, {"finite number", "'abc'", NULL}},
    {"bad_dimension.node", 0, 1, {"dimension 3", "'2'", NULL}},
    {"bad_numbering.node", 0, 4, {"point number 3", "found 4", NULL}},
    {"bad_first_number.node", 0, 2, {"numbered 0 or 1", "found 3", NULL}},
    {"bad_tet_degenerate.ele", 0, 3, {"non-zero volume", "zero-volume", "1 2 3 4"}},
    {"bad_empty.node", 0, 1, {"header", "an empty file", NULL}},
    {"bad_node_fields.node", 0, 4, {"expected 5 fields", "found 4", NULL}},
    {"bad_ele_fields.ele", 0, 3, {"expected 5 fields", "found 4", NULL}},
};

static void test_tetgen_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_tetgen / sizeof bad_tetgen[0]; i++) {
        const bad_case *c = &bad_tetgen[i];
        char path[256], node[256];
        snprintf(path, sizeof path, DATA "%s", c->file);
        snprintf(node, sizeof node, "%s", path);
        char *dot = strrchr(node, '.');
        strcpy(dot, ".node");
        pbd_tetmesh m;
        memset(&m, 0x5a, sizeof m);
        pbd_status st = pbd_tetmesh_load_tetgen(node, &m);
        CU_ASSERT_EQUAL(st, PBD_EINPUT);
        CU_ASSERT(m.x == NULL && m.tet == NULL && m.n_vertices == 0 && m.n_tets == 0);
        if (st != PBD_EINPUT) {
            fprintf(stderr, "\n    %s loaded with status %d", c->file, st);
            pbd_tetmesh_free(&m);
            continue;
        }
        check_message(path, c->line, c->words);
    }
    pbd_tetmesh m;
    CU_ASSERT_EQUAL(pbd_tetmesh_load_tetgen(DATA "bad_missing_ele.node", &m), PBD_EINPUT);
    const char *const words[] = {"expected the TetGen .ele file beside", DATA "bad_missing_ele.node",
                                 "No such file", NULL};
    check_message(DATA "bad_missing_ele.ele: expected", 0, words);
    CU_ASSERT_EQUAL(pbd_tetmesh_load_tetgen(DATA "good_cube.ele", &m), PBD_EINPUT);
    const char *const ele_words[] = {".node", NULL};
    check_message(DATA "good_cube.ele: expected", 0, ele_words);
}

/* ---- generators -------------------------------------------------------------------- */

static int has_edge(const int32_t *e, int ne, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    for (int i = 0; i < ne; i++)
        if (e[2 * i] == a && e[2 * i + 1] == b) return 1;
    return 0;
}

/* Is (a, b, c) a triangle of m, in this cyclic order? */
static int has_triangle(const pbd_trimesh *m, int a, int b, int c)
{
    for (int t = 0; t < m->n_triangles; t++) {
        const int32_t *v = m->tri + 3 * t;
        for (int s = 0; s < 3; s++)
            if (v[s] == a && v[(s + 1) % 3] == b && v[(s + 2) % 3] == c) return 1;
    }
    return 0;
}

static void test_grid_topology(void)
{
    for (int d = 0; d <= PBD_DIAGONAL_UNION_JACK; d++)
        for (int r = 2; r <= 9; r++) {
            pbd_trimesh m;
            CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(r, r, 2.0, 2.0, d, &m), PBD_OK);
            pbd_trimesh_report rep;
            CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &rep), PBD_OK);
            int q = r - 1;
            CU_ASSERT_EQUAL(m.n_vertices, r * r);
            CU_ASSERT_EQUAL(m.n_triangles, 2 * q * q);
            CU_ASSERT_EQUAL(rep.n_edges, 2 * r * q + q * q); /* rows + columns + diagonals */
            CU_ASSERT_EQUAL(rep.n_boundary_edges, 4 * q);
            CU_ASSERT_EQUAL(rep.n_nonmanifold_edges, 0);
            CU_ASSERT_EQUAL(rep.n_degenerate, 0);
            CU_ASSERT(rep.oriented && !rep.closed);
            CU_ASSERT_EQUAL(rep.euler, 1); /* a disk */
            CU_ASSERT_DOUBLE_EQUAL(rep.area, 4.0, 1e-12);
            CU_ASSERT_EQUAL(pbd_trimesh_require(&m, PBD_MESH_CLOTH), PBD_OK);
            /* counter-clockwise seen from +z */
            for (int t = 0; t < m.n_triangles; t++) {
                const double *a = m.x + 3 * m.tri[3 * t], *b = m.x + 3 * m.tri[3 * t + 1],
                             *c = m.x + 3 * m.tri[3 * t + 2];
                CU_ASSERT((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0.0);
            }
            /* hinges: one per interior edge, (p1, p2, p3) a triangle as oriented, (p2, p1, p4)
             * the other one */
            int32_t *h, *e;
            int nh = pbd_trimesh_hinges(&m, &h);
            int ne = pbd_trimesh_edges(&m, &e, NULL);
            CU_ASSERT_EQUAL(nh, q * (3 * r - 5));
            CU_ASSERT_EQUAL(nh, rep.n_edges - rep.n_boundary_edges);
            for (int k = 0; k < nh; k++) {
                const int32_t *s = h + 4 * k;
                CU_ASSERT(has_triangle(&m, s[0], s[1], s[2]));
                CU_ASSERT(has_triangle(&m, s[1], s[0], s[3]));
                CU_ASSERT(s[2] != s[3]);
            }
            /* the diagonal of quad (i, j) follows the pattern */
            for (int j = 0; j < q; j++)
                for (int i = 0; i < q; i++) {
                    int a = j * r + i;
                    int main = d == PBD_DIAGONAL_SAME        ? 1
                               : d == PBD_DIAGONAL_ALTERNATE ? j % 2 == 0
                                                             : (i + j) % 2 == 0;
                    CU_ASSERT_EQUAL(has_edge(e, ne, a, a + r + 1), main);
                    CU_ASSERT_EQUAL(has_edge(e, ne, a + 1, a + r), !main);
                }
            free(h);
            free(e);
            pbd_trimesh_free(&m);
        }
    pbd_trimesh m;
    CU_ASSERT_EQUAL(pbd_mesh_grid(1, 4, 1.0, 1.0, 0, &m), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_mesh_grid(4, 4, NAN, 1.0, 0, &m), PBD_EINVAL);
}

/* In the union-jack pattern the diagonals of a 2 × 2 block meet at its centre. */
static void test_grid_union_jack_star(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(3, 3, 1.0, 1.0, PBD_DIAGONAL_UNION_JACK, &m), PBD_OK);
    int32_t *e;
    int ne = pbd_trimesh_edges(&m, &e, NULL), valence = 0;
    for (int i = 0; i < ne; i++) valence += e[2 * i] == 4 || e[2 * i + 1] == 4;
    CU_ASSERT_EQUAL(valence, 8);
    free(e);
    pbd_trimesh_free(&m);
}

static void test_icosphere(void)
{
    double previous = 0.0, R = 0.7;
    for (int level = 0; level <= 4; level++) {
        pbd_trimesh m;
        CU_ASSERT_EQUAL_FATAL(pbd_mesh_icosphere(level, R, &m), PBD_OK);
        pbd_trimesh_report r;
        CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &r), PBD_OK);
        int p = 1 << (2 * level);
        CU_ASSERT_EQUAL(m.n_vertices, 10 * p + 2);
        CU_ASSERT_EQUAL(r.n_edges, 30 * p);
        CU_ASSERT_EQUAL(m.n_triangles, 20 * p);
        CU_ASSERT_EQUAL(r.euler, 2);
        CU_ASSERT(r.closed && r.oriented);
        CU_ASSERT_EQUAL(r.n_degenerate, 0);
        CU_ASSERT_EQUAL(pbd_trimesh_require(&m, PBD_MESH_CLOSED_SURFACE), PBD_OK);
        /* an inscribed polyhedron: positive volume, growing with the level, below the ball's */
        double ball = 4.0 / 3.0 * M_PI * R * R * R;
        CU_ASSERT(r.volume > previous && r.volume < ball);
        if (level == 4) CU_ASSERT(r.volume > 0.99 * ball);
        previous = r.volume;
        for (int i = 0; i < m.n_vertices; i++) {
            const double *x = m.x + 3 * i;
            CU_ASSERT_DOUBLE_EQUAL(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), R, 1e-14);
        }
        int32_t *h;
        CU_ASSERT_EQUAL(pbd_trimesh_hinges(&m, &h), r.n_edges); /* every edge is a hinge */
        free(h);
        pbd_trimesh_free(&m);
    }
}

static void test_cloth_bag(void)
{
    for (int n = 1; n <= 4; n++)
        for (int closed = 0; closed <= 1; closed++) {
            pbd_trimesh m;
            CU_ASSERT_EQUAL_FATAL(pbd_mesh_cloth_bag(n, 0.5, closed, PBD_DIAGONAL_UNION_JACK, &m),
                                  PBD_OK);
            pbd_trimesh_report r;
            CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &r), PBD_OK);
            CU_ASSERT_EQUAL(r.n_nonmanifold_edges, 0);
            CU_ASSERT_EQUAL(r.n_degenerate, 0);
            CU_ASSERT(r.oriented);
            CU_ASSERT_DOUBLE_EQUAL(r.area, (closed ? 6 : 5) * 0.25, 1e-12);
            if (closed) {
                CU_ASSERT_EQUAL(m.n_vertices, 6 * n * n + 2);
                CU_ASSERT_EQUAL(m.n_triangles, 12 * n * n);
                CU_ASSERT_EQUAL(r.n_edges, 18 * n * n);
                CU_ASSERT(r.closed);
                CU_ASSERT_EQUAL(r.euler, 2);
                CU_ASSERT_DOUBLE_EQUAL(r.volume, 0.125, 1e-14); /* outward */
            } else {
                CU_ASSERT_EQUAL(m.n_vertices, 6 * n * n + 2 - (n - 1) * (n - 1));
                CU_ASSERT_EQUAL(m.n_triangles, 10 * n * n);
                CU_ASSERT_EQUAL(r.n_boundary_edges, 4 * n);
                CU_ASSERT_EQUAL(r.euler, 1);
                int rim = 0; /* the open top: 4n vertices at y = 0 */
                for (int i = 0; i < m.n_vertices; i++) rim += m.x[3 * i + 1] == 0.0;
                CU_ASSERT_EQUAL(rim, 4 * n);
            }
            pbd_trimesh_free(&m);
        }
}

static void test_tet_beam(void)
{
    const int dims[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 2, 1}, {2, 2, 2}, {5, 3, 2}};
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++)
        for (int per = 5; per <= 6; per++) {
            int nx = dims[c][0], ny = dims[c][1], nz = dims[c][2];
            double lx = 1.5, ly = 0.4, lz = 0.3, box = lx * ly * lz, cell = box / (nx * ny * nz);
            pbd_tetmesh m;
            CU_ASSERT_EQUAL_FATAL(pbd_mesh_tet_beam(nx, ny, nz, lx, ly, lz, per, &m), PBD_OK);
            CU_ASSERT_EQUAL(m.n_vertices, (nx + 1) * (ny + 1) * (nz + 1));
            CU_ASSERT_EQUAL(m.n_tets, per * nx * ny * nz);
            double vmin, sum = tets_volume(&m, &vmin);
            CU_ASSERT(vmin > 0.0);
            CU_ASSERT_DOUBLE_EQUAL(sum, box, 1e-14 * box * m.n_tets);
            CU_ASSERT_DOUBLE_EQUAL(vmin, cell / 6.0, 1e-12 * cell);
            /* conforming: interior faces shared by two tets, the boundary is the box surface
             * with two triangles per face of a cube, closed and of the box's volume */
            int32_t *b;
            int nb = pbd_tetmesh_boundary(&m, &b);
            CU_ASSERT_EQUAL(nb, 4 * (nx * ny + ny * nz + nz * nx));
            if (nb > 0) {
                pbd_trimesh s = {m.n_vertices, m.x, nb, b, NULL, NULL};
                pbd_trimesh_report r;
                CU_ASSERT_EQUAL(pbd_trimesh_inspect(&s, &r), PBD_OK);
                CU_ASSERT(r.closed && r.oriented);
                CU_ASSERT_DOUBLE_EQUAL(r.volume, box, 1e-13);
                CU_ASSERT_DOUBLE_EQUAL(r.area, 2 * (lx * ly + ly * lz + lz * lx), 1e-13);
                free(b);
            }
            pbd_tetmesh_free(&m);
        }
    pbd_tetmesh m;
    CU_ASSERT_EQUAL(pbd_mesh_tet_beam(2, 1, 1, 1, 1, 1, 4, &m), PBD_EINVAL);
}

static int same_trimesh(const pbd_trimesh *a, const pbd_trimesh *b)
{
    return a->n_vertices == b->n_vertices && a->n_triangles == b->n_triangles &&
           memcmp(a->x, b->x, 3 * (size_t)a->n_vertices * sizeof *a->x) == 0 &&
           memcmp(a->tri, b->tri, 3 * (size_t)a->n_triangles * sizeof *a->tri) == 0;
}

static int same_tetmesh(const pbd_tetmesh *a, const pbd_tetmesh *b)
{
    return a->n_vertices == b->n_vertices && a->n_tets == b->n_tets &&
           memcmp(a->x, b->x, 3 * (size_t)a->n_vertices * sizeof *a->x) == 0 &&
           memcmp(a->tet, b->tet, 4 * (size_t)a->n_tets * sizeof *a->tet) == 0;
}

/* pbd-meshgen writes what the generators make, and it loads back bit for bit. */
static void test_meshgen_round_trip(void)
{
    char dir[] = "/tmp/pbd-mesh-XXXXXX", cmd[1024], path[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    pbd_trimesh g, l;
    snprintf(path, sizeof path, "%s/sphere.obj", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-meshgen icosphere --level=2 --size=0.6 --out=%s",
             test_bin_dir(), path);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_icosphere(2, 0.3, &g), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(path, PBD_MESH_CLOSED_SURFACE, &l), PBD_OK);
    CU_ASSERT(same_trimesh(&g, &l));
    pbd_trimesh_free(&g);
    pbd_trimesh_free(&l);
    remove(path);

    snprintf(path, sizeof path, "%s/grid.obj", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-meshgen grid --resolution=7 --size=0.9 "
             "--diagonal=alternate --out=%s", test_bin_dir(), path);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(7, 7, 0.9, 0.9, PBD_DIAGONAL_ALTERNATE, &g), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj(path, PBD_MESH_CLOTH, &l), PBD_OK);
    CU_ASSERT(same_trimesh(&g, &l));
    pbd_trimesh_free(&g);
    pbd_trimesh_free(&l);
    remove(path);

    pbd_tetmesh tg, tl;
    snprintf(path, sizeof path, "%s/beam.node", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-meshgen beam --resolution=8 --size=2 --tets-per-cube=5 "
             "--out=%s", test_bin_dir(), path);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_tet_beam(8, 2, 2, 2.0, 0.5, 0.5, 5, &tg), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_tetmesh_load_tetgen(path, &tl), PBD_OK);
    CU_ASSERT(same_tetmesh(&tg, &tl));
    pbd_tetmesh_free(&tg);
    pbd_tetmesh_free(&tl);
    remove(path);
    snprintf(path, sizeof path, "%s/beam.ele", dir);
    remove(path);
    CU_ASSERT_EQUAL(rmdir(dir), 0); /* nothing else (no .tmp) was left behind */
}

/* The meshes shipped in data/meshes are what pbd-meshgen makes (the commands in
 * experiments/README.md "Meshes and scenes"). */
static void test_shipped_meshes(void)
{
    pbd_trimesh g, l;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(16, 16, 1.0, 1.0, PBD_DIAGONAL_UNION_JACK, &g), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj("data/meshes/cloth_16.obj", PBD_MESH_CLOTH, &l),
                          PBD_OK);
    CU_ASSERT(same_trimesh(&g, &l));
    pbd_trimesh_free(&g);
    pbd_trimesh_free(&l);
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_icosphere(2, 0.25, &g), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(
        pbd_trimesh_load_obj("data/meshes/sphere_2.obj", PBD_MESH_CLOSED_SURFACE, &l), PBD_OK);
    CU_ASSERT(same_trimesh(&g, &l));
    pbd_trimesh_free(&g);
    pbd_trimesh_free(&l);
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_cloth_bag(6, 0.5, 0, PBD_DIAGONAL_UNION_JACK, &g), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_trimesh_load_obj("data/meshes/bag_6.obj", PBD_MESH_CLOTH, &l),
                          PBD_OK);
    CU_ASSERT(same_trimesh(&g, &l));
    pbd_trimesh_free(&g);
    pbd_trimesh_free(&l);
    pbd_tetmesh tg, tl;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_tet_beam(8, 2, 2, 1.0, 0.25, 0.25, 6, &tg), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_tetmesh_load_tetgen("data/meshes/beam_8.node", &tl), PBD_OK);
    CU_ASSERT(same_tetmesh(&tg, &tl));
    pbd_tetmesh_free(&tg);
    pbd_tetmesh_free(&tl);
}

void register_mesh_tests(void)
{
    CU_pSuite s = CU_add_suite("mesh", NULL, NULL);
    CU_add_test(s, "obj_good_square", test_obj_good_square);
    CU_add_test(s, "obj_good_crlf", test_obj_good_crlf);
    CU_add_test(s, "obj_good_forms", test_obj_good_forms);
    CU_add_test(s, "obj_reported_without_requirement", test_obj_reported_without_requirement);
    CU_add_test(s, "obj_bad_files", test_obj_bad_files);
    CU_add_test(s, "tetgen_good", test_tetgen_good);
    CU_add_test(s, "tetgen_bad_files", test_tetgen_bad_files);
    CU_add_test(s, "grid_topology", test_grid_topology);
    CU_add_test(s, "grid_union_jack_star", test_grid_union_jack_star);
    CU_add_test(s, "icosphere", test_icosphere);
    CU_add_test(s, "cloth_bag", test_cloth_bag);
    CU_add_test(s, "tet_beam", test_tet_beam);
    CU_add_test(s, "meshgen_round_trip", test_meshgen_round_trip);
    CU_add_test(s, "shipped_meshes", test_shipped_meshes);
}
