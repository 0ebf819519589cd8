/* Tests that a typo cannot pass (issue 17): each constraint type's declared unit against how
 * its C scales; the rest values of a zero-area hinge; a tearing split whose sides have
 * unequal rest areas; second, independent checks of the linearized stiffness, restitution
 * and the gradient checker's PASS threshold; provenance (revision, flags, command, machine,
 * threads) as the build and the run really were; the sidecar's cells; a logging failure is
 * not a flag error. */
#include "tests.h"

#include "solver/tearing/pbd_tearing.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-truth-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(tmpdir) == 0 ? 0 : 1; }

/* ---- units -------------------------------------------------------------------------------- */

/* C in unit m^k scales as s^k when every length scales by s. An energy constraint
 * C = √(2ΨV) (unit J^1/2, issue 15) with its material held fixed scales as the square root of
 * its element's measure: s^(3/2) for a tet (arity 4, Ψ per volume), s for a triangle (arity 3,
 * Ψ per area with the membrane's modulus in N/m). */
static double unit_power(const char *u, int arity)
{
    if (!u) return -99;
    if (!strcmp(u, "m")) return 1;
    if (!strcmp(u, "m^2")) return 2;
    if (!strcmp(u, "m^3")) return 3;
    if (!strcmp(u, "rad") || !strcmp(u, "1")) return 0;
    if (!strcmp(u, "J^1/2") && (arity == 3 || arity == 4)) return arity == 4 ? 1.5 : 1.0;
    return -99;
}

static double norm(const double *g, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += g[i] * g[i];
    return sqrt(s);
}

/* Every type declares a unit, and its C and ∇C scale with the positions as that unit says:
 * C(s x; rest(s y)) = s^k C(x; rest(y)) and |∇C| by s^(k-1) (rest values from the type's
 * rest function on a configuration y, or the sampled ones when it has none). */
static void test_units_scale(void)
{
    const double s = 2.5;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->eval) continue; /* no scalar C to scale (shape_match) */
        double k = unit_power(type->unit, type->arity);
        CU_ASSERT(k != -99);
        if (k == -99) {
            printf("\n    %s: unit '%s' not one of m, m^2, m^3, rad, 1", type->name,
                   type->unit ? type->unit : "(none)");
            continue;
        }
        pbd_rng rng;
        pbd_rng_seed(&rng, 17 + t);
        int checked = 0, bad = 0;
        for (int sample = 0; sample < 40; sample++) {
            static double x[3 * PBD_SAMPLE_MAX_ARITY], y[3 * PBD_SAMPLE_MAX_ARITY],
                xs[3 * PBD_SAMPLE_MAX_ARITY], ys[3 * PBD_SAMPLE_MAX_ARITY], g1[3 * PBD_SAMPLE_MAX_ARITY],
                g2[3 * PBD_SAMPLE_MAX_ARITY];
            static double rest[3 * PBD_SAMPLE_MAX_ARITY], r1[3 * PBD_SAMPLE_MAX_ARITY],
                r2[3 * PBD_SAMPLE_MAX_ARITY];
            static int32_t aux[PBD_SAMPLE_MAX_AUX];
            int n_aux = 0;
            int arity = type->sample(&rng, 0, x, rest, aux, &n_aux);
            /* rods: the quaternions after the np particles do not scale (pbd_constraint.h) */
            const int np = arity - type->n_orient, nx = 3 * np + 4 * type->n_orient;
            for (int i = 0; i < nx; i++) {
                y[i] = x[i] + (i < 3 * np ? 0.05 * pbd_rng_gaussian(&rng) : 0.0);
                xs[i] = i < 3 * np ? s * x[i] : x[i];
                ys[i] = i < 3 * np ? s * y[i] : y[i];
            }
            memcpy(r1, rest, sizeof rest);
            memcpy(r2, rest, sizeof rest);
            if (type->rest) {
                pbd_eval_input iy = {y, arity, NULL, aux, n_aux}, iys = {ys, arity, NULL, aux, n_aux};
                type->rest(&iy, r1);
                type->rest(&iys, r2);
            }
            pbd_eval_input in1 = {x, arity, r1, aux, n_aux}, in2 = {xs, arity, r2, aux, n_aux};
            double C1, C2;
            if (type->eval(&in1, &C1, g1) != PBD_EVAL_OK || type->eval(&in2, &C2, g2) != PBD_EVAL_OK)
                continue;
            /* ∂C/∂x scales by s^(k-1), a rod's ∂C/∂θ (per radian) by s^k */
            double n1 = norm(g1, 3 * np), n2 = norm(g2, 3 * np);
            double o1 = norm(g1 + 3 * np, 3 * (arity - np)), o2 = norm(g2 + 3 * np, 3 * (arity - np));
            if (!(n1 + o1 > 1e-9)) continue;
            checked++;
            int ok = fabs(n2 - pow(s, k - 1) * n1) <= 1e-7 * pow(s, k - 1) * n1 &&
                     fabs(o2 - pow(s, k) * o1) <= 1e-7 * pow(s, k) * o1;
            if (type->rest && fabs(C1) > 1e-9)
                ok &= fabs(C2 - pow(s, k) * C1) <= 1e-7 * pow(s, k) * fabs(C1);
            bad += !ok;
        }
        printf("\n    %-16s unit %-4s: %d samples, %d off", type->name, type->unit, checked, bad);
        CU_ASSERT(checked >= 20);
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* ---- a zero-area hinge's rest ---------------------------------------------------------------- */

/* p3 on the line through the shared edge p1–p2: the hinge has no angle. The dihedral type
 * stores the flat rest angle π (a cloth's usual rest), the isometric one Q = 0 and E0 = 0
 * (and then skips the hinge). */
static void test_degenerate_hinge_rest(void)
{
    const double x[12] = {0, 0, 0, 1, 0, 0, 0.4, 0, 0, 0.5, 0.7, 0.2};
    pbd_eval_input in = {x, 4, NULL, NULL, 0};
    double rest[16];
    for (int i = 0; i < 16; i++) rest[i] = 12345.0;
    pbd_bend_dihedral_type.rest(&in, rest);
    CU_ASSERT_EQUAL(rest[0], M_PI);
    for (int i = 0; i < 16; i++) rest[i] = 12345.0;
    pbd_bend_isometric_type.rest(&in, rest);
    int zero = 1;
    for (int i = 0; i < pbd_bend_isometric_type.n_rest; i++) zero &= rest[i] == 0.0;
    CU_ASSERT(zero);
    /* not vacuous: a proper hinge folded by 90° stores its angle */
    const double folded[12] = {0, 0, 0, 1, 0, 0, 0.4, 1, 0, 0.5, 0, 1};
    pbd_eval_input in2 = {folded, 4, NULL, NULL, 0};
    pbd_bend_dihedral_type.rest(&in2, rest);
    CU_ASSERT_DOUBLE_EQUAL(rest[0], M_PI / 2, 1e-12);
}

/* ---- tearing: the mass split by rest area ------------------------------------------------------ */

static int has(const int32_t *q, int v) { return q[0] == v || q[1] == v || q[2] == v; }

static double tri_area(const double *x, const int32_t *q)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = x[3 * q[1] + k] - x[3 * q[0] + k];
        e2[k] = x[3 * q[2] + k] - x[3 * q[0] + k];
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    return 0.5 * norm(n, 3);
}

/* The 3 × 3 grid whose rest positions are sheared so that the triangles around the middle
 * vertex 4 have different areas (vertex 1 moved down, 7 up by 0.3 at rest): edge 4–7
 * stretched beyond the threshold splits 4, and 4 keeps the share of its mass that the rest
 * areas of its remaining triangles give (PBD Sec. 5 with masses lumped by area); equal
 * halves or a split by triangle count would be off by 10 % or more. */
static void test_split_unequal_areas(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(3, 3, 2.0, 2.0, PBD_DIAGONAL_SAME, &m), PBD_OK);
    double *rest = malloc(3 * (size_t)m.n_vertices * sizeof *rest);
    memcpy(rest, m.x, 3 * (size_t)m.n_vertices * sizeof *rest);
    /* rest: vertex 7 (the row above 4? below? whichever side) and 1 shifted along y */
    rest[3 * 1 + 1] -= 0.3;
    rest[3 * 3 + 0] += 0.35;
    pbd_world *w = pbd_world_create(m.n_vertices);
    for (int i = 0; i < m.n_vertices; i++)
        pbd_world_set_particle(w, i, m.x + 3 * i, NULL, 0.5 + 0.1 * i);
    int32_t *e;
    int ne = pbd_trimesh_edges(&m, &e, NULL);
    int ds = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int i = 0; i < ne; i++) {
        const double *a = rest + 3 * e[2 * i], *b = rest + 3 * e[2 * i + 1];
        double L = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        pbd_set_add(w, ds, e + 2 * i, &L, 1.0, 0.0);
    }
    free(e);
    pbd_tear_mesh tm = {m.n_vertices, rest, m.n_triangles, m.tri, "unequal"};
    pbd_tearing *t = pbd_tearing_create(w, &tm, ds, -1, 0.5);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    w->x[3 * 7 + 1] -= 0.9; /* 4–7 (rest 1) stretched to ~1.9 m */
    double m4 = 1.0 / w->w[4];
    /* the expected sides: triangles of 4 whose (current) centroid lies on 7's side of the
     * plane through x4 perpendicular to the edge stay with 4 */
    double dir[3];
    for (int k = 0; k < 3; k++) dir[k] = w->x[3 * 7 + k] - w->x[3 * 4 + k];
    double a_stay = 0, a_all = 0;
    int n_fan = 0, n_stay = 0;
    for (int tr = 0; tr < m.n_triangles; tr++) {
        const int32_t *q = m.tri + 3 * tr;
        if (!has(q, 4)) continue;
        double side = 0;
        for (int k = 0; k < 3; k++)
            side += dir[k] * ((w->x[3 * q[0] + k] + w->x[3 * q[1] + k] + w->x[3 * q[2] + k]) / 3 -
                              w->x[3 * 4 + k]);
        double a = tri_area(rest, q);
        a_all += a;
        if (side > 0) {
            a_stay += a;
            n_stay++;
        }
        n_fan++;
    }
    CU_ASSERT_EQUAL(n_fan, 6);
    CU_ASSERT(n_stay > 0 && n_stay < 6);
    /* not vacuous: the areas differ from both equal halves and a split by count */
    CU_ASSERT(fabs(a_stay / a_all - 0.5) > 0.05);
    CU_ASSERT(fabs(a_stay / a_all - (double)n_stay / n_fan) > 0.05);
    int n_split = 0;
    CU_ASSERT_EQUAL_FATAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
    CU_ASSERT_EQUAL(n_split, 1);
    int d = -1; /* 4's duplicate */
    for (int i = m.n_vertices; i < w->n; i++)
        if (pbd_tearing_parent(t, i) == 4) d = i;
    CU_ASSERT_FATAL(d >= 0);
    CU_ASSERT_DOUBLE_EQUAL(1.0 / w->w[4], m4 * a_stay / a_all, 1e-13);
    CU_ASSERT_DOUBLE_EQUAL(1.0 / w->w[d], m4 * (1 - a_stay / a_all), 1e-13);
    printf("\n    vertex 4 kept %.4f of its mass (rest areas), %d of %d triangles", a_stay / a_all,
           n_stay, n_fan);
    pbd_tearing_free(t);
    pbd_world_free(w);
    free(rest);
    pbd_trimesh_free(&m);
}

/* ---- second checks: linearized stiffness, restitution, the checker's threshold ------------ */

/* The stiffness a step uses with linearization: k' = 1 - (1-k)^(1/n) (so that n iterations
 * leave (1-k) of an isolated constraint's error), read from the set after the step and
 * computed here as 1 - exp(ln(1-k)/n). */
static void test_linearized_stiffness_value(void)
{
    const double ks[] = {0.1, 0.5, 0.9};
    const int ns[] = {1, 4, 20};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const double p1[3] = {0, 0, 0}, p2[3] = {1.2, 0, 0};
            pbd_world *w = test_two_particles(p1, p2, 1.0, 1.0);
            int s = pbd_world_add_set(w, &pbd_distance_type, 0);
            int32_t idx[2] = {0, 1};
            double L = 1.0;
            pbd_set_add(w, s, idx, &L, ks[a], 0.0);
            w->def.iterations = ns[b];
            w->def.linearize_stiffness = 1;
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            double expect = 1.0 - exp(log(1.0 - ks[a]) / ns[b]);
            CU_ASSERT_DOUBLE_EQUAL(w->sets[s].k_eff[0], expect, 1e-14);
            w->def.linearize_stiffness = 0;
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            CU_ASSERT_EQUAL(w->sets[s].k_eff[0], ks[a]);
            pbd_world_free(w);
        }
}

/* One impact, without gravity: a particle 5 mm above a plane moving down at 2 m/s, one step
 * of 10 ms. The projection puts it on the plane (v = -0.5 m/s from the positions), then
 * restitution sets the normal velocity to -e v_n,pre = 2e m/s (the predicted motion's). */
static void test_restitution_one_impact(void)
{
    const double es[] = {0.0, 0.3, 0.5, 0.8, 1.0};
    for (unsigned k = 0; k < sizeof es / sizeof es[0]; k++) {
        const double x[3] = {0.0, 0.005, 0.0}, v[3] = {0.0, -2.0, 0.0}, o[3] = {0, 0, 0},
                     n[3] = {0, 1, 0};
        pbd_world *w = pbd_world_create(1);
        pbd_world_set_particle(w, 0, x, v, 1.0);
        w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
        w->def.dt = 0.01;
        pbd_material mat = {0.0, 0.0, es[k]};
        CU_ASSERT_FATAL(pbd_world_add_plane(w, o, n, &mat) >= 0);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT_DOUBLE_EQUAL(w->x[1], 0.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(w->v[1], es[k] > 0.0 ? 2.0 * es[k] : 0.0, 1e-12);
        pbd_world_free(w);
    }
}

static double planted_factor = 1.0;
static int scaled_eval(const pbd_eval_input *in, double *C, double *grad)
{
    int st = pbd_distance_type.eval(in, C, grad);
    if (grad)
        for (int i = 0; i < 6; i++) grad[i] *= planted_factor;
    return st;
}
static int scaled_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                         int *n_aux)
{
    return pbd_distance_type.sample(r, degenerate, x, rest, aux, n_aux);
}
static const pbd_constraint_type distance_scaled = {
    .name = "distance_scaled", .unit = "m", .arity = 2, .n_rest = 1, .internal = 1,
    .eval = scaled_eval, .sample = scaled_sample,
};

/* PASS needs max_rel_err <= 1e-6: a gradient off by 3e-6 (3× the threshold) fails and one
 * off by 3e-7 passes, so the threshold lies between them. */
static void test_gradcheck_threshold_bracket(void)
{
    pbd_gradcheck_options opt = pbd_gradcheck_options_default();
    opt.samples = 300;
    opt.degenerate_samples = 0;
    const double factors[2] = {1.0 + 3e-6, 1.0 + 3e-7};
    for (int i = 0; i < 2; i++) {
        planted_factor = factors[i];
        pbd_gradcheck_result r;
        CU_ASSERT_EQUAL_FATAL(pbd_gradcheck_type(&distance_scaled, &opt, &r), PBD_OK);
        printf("\n    gradient x (1 + %.0e): max_rel_err %.2e %s", factors[i] - 1.0, r.max_rel_err,
               r.pass ? "PASS" : "FAIL");
        CU_ASSERT_EQUAL(r.pass, i == 1);
        pbd_gradcheck_result_free(&r);
    }
}

/* ---- provenance, cells, logging failures ------------------------------------------------------- */

static int read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* A scene run's file says the revision the build came from (scripts/git-revision.sh: with
 * -dirty-<hash> for uncommitted changes), the flags its objects were built with (the build
 * directory's flags.stamp, which every object depends on), its command line, the machine,
 * the load at start and end and the threads it ran on. */
static void test_provenance(void)
{
    char cmd[2048], path[1024], buf[4096], expect[4096];
    snprintf(cmd, sizeof cmd, "%s/pbd-run cloth --steps=3 --scheme=colored --threads=2 --quiet "
             "--out=%s --run=prov >/dev/null", test_bin_dir(), tmpdir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/cloth/prov.h5", tmpdir);
    /* the flags */
    char stamp[512];
    snprintf(stamp, sizeof stamp, "%s/flags.stamp", test_bin_dir());
    CU_ASSERT_EQUAL_FATAL(read_text(stamp, expect, sizeof expect), 0);
    strcat(expect, "; constraints/: -fno-math-errno");
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "cflags", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, expect);
    CU_ASSERT_STRING_EQUAL(pbd_build_cflags(), expect); /* the tests were built alike */
    /* the revision, as the tree is now (make test has just built from it) */
    char rev[512];
    snprintf(rev, sizeof rev, "%s/rev.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "sh scripts/git-revision.sh > %s", rev);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(read_text(rev, expect, sizeof expect), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "git_revision", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, expect);
    /* the command line */
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "command", buf, sizeof buf), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "pbd-run cloth --steps=3 --scheme=colored --threads=2"));
    /* the machine and the threads the steps ran on (705 constraints: enough for two) */
    double v, load[3];
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "machine.cores", &v), 0);
    CU_ASSERT_EQUAL(v, (double)sysconf(_SC_NPROCESSORS_ONLN));
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "machine.cpu_model", buf, sizeof buf), 0);
    CU_ASSERT(strlen(buf) > 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_doubles(path, "machine.loadavg_start", load, 3), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_doubles(path, "machine.loadavg_end", load, 3), 0);
    CU_ASSERT(load[0] >= 0.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "threads_used", &v), 0);
    CU_ASSERT_EQUAL(v, 2.0);
    double *th;
    long rows, cols;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/threads", &th, &rows, &cols), 0);
    CU_ASSERT(rows == 3 && th[0] == 2.0);
    free(th);
    /* serial Gauss-Seidel: one thread */
    snprintf(cmd, sizeof cmd, "%s/pbd-run chain --steps=2 --quiet --out=%s --run=serial "
             ">/dev/null", test_bin_dir(), tmpdir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/chain/serial.h5", tmpdir);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "threads_used", &v), 0);
    CU_ASSERT_EQUAL(v, 1.0);
}

/* The sidecar's cells: triangles for a cloth, tets for the beam, edges for the chain. */
static void test_sidecar_cells(void)
{
    const struct {
        const char *scene, *topology, *dataset;
    } cases[] = {{"cloth_bag", "TopologyType=\"Triangle\"", "run.h5:/scene/triangles"},
                 {"balloon", "TopologyType=\"Triangle\"", "run.h5:/scene/triangles"},
                 {"tet_beam", "TopologyType=\"Tetrahedron\"", "run.h5:/scene/tets"},
                 {"chain", "TopologyType=\"Polyline\"", "run.h5:/scene/sets/00_distance/indices"}};
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024], path[1024];
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --steps=2 --frames=1 --quiet --out=%s/cells "
                 ">/dev/null", test_bin_dir(), cases[i].scene, tmpdir);
        CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
        snprintf(path, sizeof path, "%s/cells/%s/run.xdmf", tmpdir, cases[i].scene);
        FILE *f = fopen(path, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[i].topology));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[i].dataset));
    }
}

/* A world whose constraint sets change in number after the file was opened cannot be
 * logged: an I/O status (exit 3), never PBD_EINVAL (2, a bad flag). */
static void test_logging_failure_status(void)
{
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0};
    pbd_world *w = test_two_particles(a, b, 0.0, 1.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    pbd_set_add(w, s, idx, NULL, 1.0, 0.0);
    pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", "sets", w, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    CU_ASSERT_EQUAL(pbd_h5log_step(log, w), PBD_OK);
    pbd_world_add_set(w, &pbd_attachment_type, 0);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    CU_ASSERT_EQUAL(pbd_h5log_step(log, w), PBD_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "constraint sets"));
    pbd_h5log_discard(log);
    pbd_world_free(w);
}

/* scripts/git-revision.sh in a scratch repository: the short commit when clean; "-dirty-"
 * and 12 hex digits after an edit, different for a different edit and for a new file. */
static void test_revision_dirty_mark(void)
{
    char cmd[4096], out[512], a[128], b[128], c[128], d[128];
    snprintf(out, sizeof out, "%s/rev.out", tmpdir);
    snprintf(cmd, sizeof cmd,
             "set -e; r=%s/repo; rm -rf $r; mkdir -p $r/scripts; cp scripts/git-revision.sh "
             "$r/scripts/; cd $r; git init -q; git config user.email t@t; git config user.name t; "
             "echo one > f.c; git add -A; git commit -qm one; "
             "{ sh scripts/git-revision.sh; echo two > f.c; sh scripts/git-revision.sh; "
             "echo three > f.c; sh scripts/git-revision.sh; echo new > g.c; "
             "sh scripts/git-revision.sh; } > %s", tmpdir, out);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    FILE *f = fopen(out, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int n = fscanf(f, "%127s %127s %127s %127s", a, b, c, d);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(strlen(a), 7);
    CU_ASSERT(strchr(a, '-') == NULL);
    CU_ASSERT(strncmp(b, a, 7) == 0 && strncmp(b + 7, "-dirty-", 7) == 0 && strlen(b) == 26);
    CU_ASSERT(strncmp(c, a, 7) == 0 && strlen(c) == 26 && strcmp(b, c) != 0);
    CU_ASSERT(strlen(d) == 26 && strcmp(c, d) != 0);
}

/* /scene/sets/<set>/pinned counts the rows whose particles are all fixed (what `skipped`
 * also counts): the tear scene's held top row. */
static void test_pinned_rows(void)
{
    char cmd[1024], path[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-run tear --steps=1 --quiet --out=%s --run=pinned "
             ">/dev/null", test_bin_dir(), tmpdir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/tear/pinned.h5", tmpdir);
    double *idx, *w;
    long rows, cols, n, one;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/scene/sets/00_distance/indices", &idx,
                                              &rows, &cols), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/scene/inverse_masses", &w, &n, &one), 0);
    long expect = 0;
    for (long r = 0; r < rows; r++) expect += w[(long)idx[2 * r]] == 0.0 && w[(long)idx[2 * r + 1]] == 0.0;
    free(idx);
    free(w);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    long pinned = -1;
    CU_ASSERT(H5LTget_attribute_long(f, "/scene/sets/00_distance", "pinned", &pinned) >= 0);
    char desc[512] = "";
    CU_ASSERT(H5LTget_attribute_string(f, "/series/skipped", "description", desc) >= 0);
    H5Fclose(f);
    CU_ASSERT(expect > 0);
    CU_ASSERT_EQUAL(pinned, expect);
    CU_ASSERT_PTR_NOT_NULL(strstr(desc, "pinned"));
}

/* A QUICK run of stiffness_vs_iterations is a 24x24 cloth: the summary's description and
 * headline say so (they said "64x64, 23 938 constraints" whatever was run). */
static void test_quick_described_as_run(void)
{
    char cmd[2048], path[1024], buf[2048];
    snprintf(cmd, sizeof cmd, "%s/pbd-run stiffness_vs_iterations --quick --only=xpbd_it20 "
             "--quiet --out=%s/sv >/dev/null 2>&1 && %s/pbd-run stiffness_vs_iterations --quick "
             "--summarize --allow-missing --quiet --out=%s/sv >/dev/null 2>&1", test_bin_dir(),
             tmpdir, test_bin_dir(), tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd), 0); /* one run merged, the missing ones named */
    snprintf(path, sizeof path, "%s/sv/stiffness_vs_iterations/summary.h5", tmpdir);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_attr_string(path, "description", buf, sizeof buf), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "As run: 24x24 cloth, 3218 distance constraints"));
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_attr_string(path, "headline", buf, sizeof buf), 0);
    CU_ASSERT(strncmp(buf, "24x24 cloth (3218 constraints)", 30) == 0);
    double v;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "constraints", &v), 0);
    CU_ASSERT_EQUAL(v, 3218.0);
}

void register_truth_tests(void)
{
    CU_pSuite s = CU_add_suite("truth", suite_init, suite_clean);
    CU_add_test(s, "units_scale", test_units_scale);
    CU_add_test(s, "degenerate_hinge_rest", test_degenerate_hinge_rest);
    CU_add_test(s, "split_unequal_areas", test_split_unequal_areas);
    CU_add_test(s, "linearized_stiffness_value", test_linearized_stiffness_value);
    CU_add_test(s, "restitution_one_impact", test_restitution_one_impact);
    CU_add_test(s, "gradcheck_threshold_bracket", test_gradcheck_threshold_bracket);
    CU_add_test(s, "provenance", test_provenance);
    CU_add_test(s, "sidecar_cells", test_sidecar_cells);
    CU_add_test(s, "logging_failure_status", test_logging_failure_status);
    CU_add_test(s, "quick_described_as_run", test_quick_described_as_run);
    CU_add_test(s, "revision_dirty_mark", test_revision_dirty_mark);
    CU_add_test(s, "pinned_rows", test_pinned_rows);
}
