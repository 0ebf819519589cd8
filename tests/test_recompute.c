/* Every number in a results file is true (issue 17): scenes run through pbd-run with
 * --frames=1 --frame-velocities, read back with the project's reader (experiments/log/
 * h5read.c), and every per-set residual, the elastic energy, momentum and energy column of
 * /series recomputed here from /scene and /frames — the positions, velocities, λ, inverse
 * masses and constraint rows of each frame — with the definitions written in
 * experiments/README.md, not with the solver's measurement function. Only C itself comes
 * from the type's eval. PBD, XPBD with compliance, damping, substeps, Jacobi-free coloured
 * sorting, mixed units and tearing (a world that grows); rows the measure stage skipped
 * must be NaN. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-recompute-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(tmpdir) == 0 ? 0 : 1; }

/* One constraint set as a file holds it. */
typedef struct rset {
    const pbd_constraint_type *type;
    long count;
    int arity;
    int32_t *idx, *aux;
    int n_aux;
    double *rest, *alpha;
} rset;

typedef struct rtopo {
    int version;
    long n;
    double *w;
    rset set[PBD_H5_MAX_NAMES];
} rtopo;

static const char *path_now;
static int mismatches;

/* A dataset or NULL (absent). */
static double *dataset(const char *name, long *rows, long *cols)
{
    double *d = NULL;
    long r = 0, c = 0;
    if (pbd_h5_read_dataset(path_now, name, &d, &r, &c) != 0) return NULL;
    if (rows) *rows = r;
    if (cols) *cols = c;
    return d;
}

static void free_topo(rtopo *t, int n_sets)
{
    free(t->w);
    for (int s = 0; s < n_sets; s++) {
        free(t->set[s].idx);
        free(t->set[s].aux);
        free(t->set[s].rest);
        free(t->set[s].alpha);
    }
    memset(t, 0, sizeof *t);
}

/* The topology in group (/scene or /frames/topology/<v>): inverse masses and every set. */
static int load_topo(const char *group, const pbd_h5_names *sets, rtopo *t)
{
    char name[512];
    long rows, cols;
    snprintf(name, sizeof name, "%s/inverse_masses", group);
    t->w = dataset(name, &rows, &cols);
    if (!t->w) return -1;
    t->n = rows;
    for (int s = 0; s < sets->count; s++) {
        rset *r = &t->set[s];
        const char *type = strchr(sets->name[s], '_') + 1;
        r->type = pbd_constraint_type_find(type);
        if (!r->type) return -1;
        double *d;
        snprintf(name, sizeof name, "%s/sets/%s/indices", group, sets->name[s]);
        if (!(d = dataset(name, &rows, &cols))) continue; /* an empty set */
        r->count = rows;
        r->arity = (int)cols;
        r->idx = malloc((size_t)(rows * cols) * sizeof *r->idx);
        for (long i = 0; i < rows * cols; i++) r->idx[i] = (int32_t)d[i];
        free(d);
        snprintf(name, sizeof name, "%s/sets/%s/rest", group, sets->name[s]);
        r->rest = dataset(name, NULL, NULL);
        snprintf(name, sizeof name, "%s/sets/%s/compliance", group, sets->name[s]);
        r->alpha = dataset(name, NULL, NULL);
        snprintf(name, sizeof name, "%s/sets/%s/aux", group, sets->name[s]);
        if ((d = dataset(name, &rows, &cols))) {
            r->n_aux = (int)rows;
            r->aux = malloc((size_t)rows * sizeof *r->aux);
            for (long i = 0; i < rows; i++) r->aux[i] = (int32_t)d[i];
            free(d);
        }
        if (!r->alpha || (r->type->n_rest > 0 && !r->rest)) return -1;
    }
    return 0;
}

/* file == mine to rounding (scale: the size of the terms summed), or NaN when unmeasured. */
static void check(const char *what, long step, double file, double mine, double scale,
                  int measured)
{
    int ok = measured ? fabs(file - mine) <= 1e-11 * scale + 1e-300 || file == mine
                      : isnan(file);
    if (!ok && mismatches++ < 8)
        printf("\n    %s: step %ld %s: file %.17g, recomputed %.17g", path_now, step, what, file,
               mine);
}

/* One step's column: a series dataset's row. */
static double at(const double *d, long row, long cols, int k) { return d ? d[row * cols + k] : NAN; }

/* Recompute the file's /series from /scene and /frames; returns the rows checked. */
static long recompute(const char *path)
{
    path_now = path;
    double dt, subs, every, g[3];
    char method[32];
    CU_ASSERT_FATAL(pbd_h5_read_attr_double(path, "solver.dt", &dt) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_attr_double(path, "solver.substeps", &subs) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_attr_double(path, "solver.measure-every", &every) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_attr_doubles(path, "solver.gravity", g, 3) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_attr_string(path, "solver.method", method, sizeof method) == 0);
    const int xpbd = strcmp(method, "xpbd") == 0;
    const double h = dt / subs, alpha_scale = 1.0 / (h * h); /* α̃ = α/h², h the last substep */
    static pbd_h5_names sets;
    CU_ASSERT_FATAL(pbd_h5_read_names(path, "/scene/sets", &sets) == 0);
    CU_ASSERT_FATAL(sets.count <= PBD_H5_MAX_NAMES);
    long nf = 0, c1 = 0, ns = 0, sc = 0;
    double *fstep = dataset("/frames/step", &nf, &c1);
    double *fver = dataset("/frames/topology_version", NULL, NULL);
    double *fn = dataset("/frames/n_particles", NULL, NULL);
    CU_ASSERT_FATAL(fstep && fver && fn);
    /* the series columns */
    double *sstep = dataset("/series/step", &ns, &sc);
    double *ke = dataset("/series/kinetic_energy", NULL, NULL);
    double *pe = dataset("/series/gravitational_energy", NULL, NULL);
    double *el = dataset("/series/elastic_energy", NULL, NULL);
    double *tot = dataset("/series/total_energy", NULL, NULL);
    double *lin = dataset("/series/linear_momentum", NULL, NULL);
    double *ang = dataset("/series/angular_momentum", NULL, NULL);
    double *np = dataset("/series/particles", NULL, NULL);
    double *omax = dataset("/series/max_c", NULL, NULL), *ol2 = dataset("/series/l2_c", NULL, NULL);
    CU_ASSERT_FATAL(sstep && ke && pe && el && tot && lin && ang && np);
    /* overall residuals exist exactly when every set has the same unit */
    int same_unit = 1;
    for (int s = 1; s < sets.count; s++)
        same_unit &= strcmp(pbd_constraint_type_find(strchr(sets.name[s], '_') + 1)->unit,
                            pbd_constraint_type_find(strchr(sets.name[0], '_') + 1)->unit) == 0;
    CU_ASSERT_EQUAL((omax != NULL), same_unit);
    double *col[PBD_H5_MAX_NAMES][4];
    static const char *const kinds[4] = {"max_c", "l2_c", "xpbd_residual", "elastic_energy"};
    for (int s = 0; s < sets.count; s++)
        for (int k = 0; k < 4; k++) {
            char name[300];
            snprintf(name, sizeof name, "/series/sets/%s/%s", sets.name[s], kinds[k]);
            col[s][k] = dataset(name, NULL, NULL);
            CU_ASSERT_FATAL(col[s][k] != NULL);
        }
    rtopo topo = {0};
    topo.version = -1;
    long checked = 0;
    for (long f = 0; f < nf; f++) {
        long step = (long)fstep[f];
        int version = (int)fver[f];
        if (version != topo.version) {
            free_topo(&topo, sets.count);
            char group[64];
            if (version == 0)
                snprintf(group, sizeof group, "/scene");
            else
                snprintf(group, sizeof group, "/frames/topology/%d", version);
            CU_ASSERT_FATAL(load_topo(group, &sets, &topo) == 0);
            topo.version = version;
        }
        if (step == 0) continue; /* the initial state: no series row */
        char name[300];
        long rows = 0, cols = 0;
        snprintf(name, sizeof name, "/frames/%06ld/positions", f);
        double *x = dataset(name, &rows, &cols);
        snprintf(name, sizeof name, "/frames/%06ld/velocities", f);
        double *v = dataset(name, NULL, NULL);
        CU_ASSERT_FATAL(x && v && rows == topo.n && (long)fn[f] == topo.n);
        const long row = step - 1;
        CU_ASSERT_FATAL(row < ns && (long)sstep[row] == step);
        check("particles", step, np[row], (double)topo.n, 1.0, 1);
        const int measured = every > 0 && step % (long)every == 0;
        /* energies and momenta of the free particles (w > 0), m = 1/w */
        double k = 0, p = 0, l[3] = {0, 0, 0}, a[3] = {0, 0, 0}, kscale = 0, pscale = 0;
        for (long i = 0; i < topo.n; i++) {
            if (!(topo.w[i] > 0.0)) continue;
            double m = 1.0 / topo.w[i];
            const double *xi = x + 3 * i, *vi = v + 3 * i;
            k += 0.5 * m * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
            double gx = -m * (g[0] * xi[0] + g[1] * xi[1] + g[2] * xi[2]);
            p += gx;
            pscale += fabs(gx);
            for (int c = 0; c < 3; c++) l[c] += m * vi[c];
            a[0] += m * (xi[1] * vi[2] - xi[2] * vi[1]);
            a[1] += m * (xi[2] * vi[0] - xi[0] * vi[2]);
            a[2] += m * (xi[0] * vi[1] - xi[1] * vi[0]);
            kscale += m * (fabs(vi[0]) + fabs(vi[1]) + fabs(vi[2])) * (1 + fabs(xi[0]) + fabs(xi[1]) + fabs(xi[2]));
        }
        check("kinetic_energy", step, ke[row], k, k, measured);
        check("gravitational_energy", step, pe[row], p, pscale, measured);
        for (int c = 0; c < 3; c++) {
            check("linear_momentum", step, lin[3 * row + c], l[c], kscale, measured);
            check("angular_momentum", step, ang[3 * row + c], a[c], kscale, measured);
        }
        /* per set: C of every constraint at x, λ of the frame */
        double all_max = 0, all_sum = 0, elastic = 0;
        for (int s = 0; s < sets.count; s++) {
            const rset *r = &topo.set[s];
            snprintf(name, sizeof name, "/frames/%06ld/lambda/%s", f, sets.name[s]);
            long lr = 0;
            double *lambda = r->count > 0 ? dataset(name, &lr, NULL) : NULL;
            CU_ASSERT_FATAL(r->count == 0 || (lambda && lr == r->count));
            double mx = 0, sum = 0, sum_x = 0, e = 0, escale = 0;
            double gathered[3 * PBD_SAMPLE_MAX_ARITY * 4];
            for (long c = 0; c < r->count; c++) {
                double *gx = r->arity <= (int)(sizeof gathered / sizeof gathered[0]) / 3
                                 ? gathered : malloc(3 * (size_t)r->arity * sizeof *gx);
                for (int j = 0; j < r->arity; j++)
                    memcpy(gx + 3 * j, x + 3 * (size_t)r->idx[c * r->arity + j], 3 * sizeof(double));
                pbd_eval_input in = {gx, r->arity, r->rest ? r->rest + c * r->type->n_rest : NULL,
                                     r->aux, r->n_aux};
                double C = NAN;
                int st = r->type->eval(&in, &C, NULL);
                if (gx != gathered) free(gx);
                if (st != PBD_EVAL_OK && !isfinite(C)) continue;
                /* counted: equalities and violated inequalities; the XPBD residual also
                 * counts inequalities that hold a multiplier */
                double res = C + r->alpha[c] * alpha_scale * lambda[c];
                if (r->type->inequality && C >= 0.0) {
                    if (lambda[c] != 0.0) sum_x += res * res;
                    continue;
                }
                if (r->type->inequality && lambda[c] == 0.0) res = C;
                sum_x += res * res;
                mx = fmax(mx, fabs(C));
                sum += C * C;
                if (r->alpha[c] > 0.0) { /* XPBD Eq. 3: U = C²/(2α) */
                    e += C * C / (2.0 * r->alpha[c]);
                    escale += C * C / (2.0 * r->alpha[c]);
                }
            }
            free(lambda);
            snprintf(name, sizeof name, "%s/max_c", sets.name[s]);
            check(name, step, at(col[s][0], row, 1, 0), mx, mx, measured);
            snprintf(name, sizeof name, "%s/l2_c", sets.name[s]);
            check(name, step, at(col[s][1], row, 1, 0), sqrt(sum), sqrt(sum), measured);
            snprintf(name, sizeof name, "%s/xpbd_residual", sets.name[s]);
            check(name, step, at(col[s][2], row, 1, 0), sqrt(sum_x), sqrt(sum_x), measured);
            if (xpbd)
                check("elastic_energy", step, at(col[s][3], row, 1, 0), e, escale, measured);
            else
                check("elastic_energy (PBD: none)", step, at(col[s][3], row, 1, 0), NAN, 0, 0);
            all_max = fmax(all_max, mx);
            all_sum += sum;
            elastic += e;
        }
        if (omax) {
            check("max_c", step, omax[row], all_max, all_max, measured);
            check("l2_c", step, ol2[row], sqrt(all_sum), sqrt(all_sum), measured);
        }
        if (xpbd) check("elastic_energy", step, el[row], elastic, elastic, measured);
        else check("elastic_energy (PBD: none)", step, el[row], NAN, 0, 0);
        check("total_energy", step, tot[row], k + p + (xpbd ? elastic : 0.0),
              k + pscale + elastic, measured);
        free(x);
        free(v);
        checked++;
    }
    free_topo(&topo, sets.count);
    for (int s = 0; s < sets.count; s++)
        for (int k = 0; k < 4; k++) free(col[s][k]);
    free(fstep); free(fver); free(fn); free(sstep); free(ke); free(pe); free(el); free(tot);
    free(lin); free(ang); free(np); free(omax); free(ol2);
    return checked;
}

/* pbd-run <args> --frames=1 --frame-velocities --out=tmpdir --run=<run>: its file. */
static int run_scene(const char *scene, const char *run, const char *args, char *path,
                     size_t size)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s %s --frames=1 --frame-velocities --quiet "
             "--out=%s --run=%s >/dev/null", test_bin_dir(), scene, args, tmpdir, run);
    snprintf(path, size, "%s/%s/%s.h5", tmpdir, scene, run);
    return test_run(cmd);
}

static const struct {
    const char *scene, *run, *args;
    int steps;
} runs[] = {
    {"chain", "pbd", "--steps=30", 30},
    {"cloth", "xpbd_damped", "--steps=20 --method=xpbd --compliance=1e-4 --damping=scale "
     "--k-damping=0.05", 20},
    {"cloth_bend", "xpbd_substeps", "--steps=12 --method=xpbd --compliance=1e-5 "
     "--bend-compliance=0.01 --substeps=3 --iterations=4 --damping=momentum --k-damping=0.1", 12},
    {"balloon", "mixed_units", "--steps=10 --method=xpbd --compliance=1e-4", 10},
    {"tet_beam", "pbd_linearized", "--steps=10 --linearize --stiffness=0.5", 10},
    {"cloth", "sorted", "--steps=5 --scheme=colored --sort-by-colour=1 --method=xpbd "
     "--compliance=1e-4", 5},
    {"tear", "torn", "--steps=12", 12},
    {"chain", "measure_every", "--steps=10 --measure-every=3 --method=xpbd --compliance=1e-5", 10},
};

static void test_series_recomputed(void)
{
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char path[1024];
        CU_ASSERT_EQUAL_FATAL(run_scene(runs[i].scene, runs[i].run, runs[i].args, path,
                                        sizeof path), 0);
        mismatches = 0;
        long checked = recompute(path);
        CU_ASSERT_EQUAL(checked, runs[i].steps);
        CU_ASSERT_EQUAL(mismatches, 0);
        printf("\n    %s/%s: %ld steps recomputed, %d mismatches", runs[i].scene, runs[i].run,
               checked, mismatches);
    }
}

/* The tear run grew: its frames hold new topology versions with more particles, each new
 * one's parent recorded, and the overall residuals are absent (m and rad). */
static void test_tear_logged(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tear/torn.h5", tmpdir);
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
    } else {
        CU_ASSERT_EQUAL_FATAL(run_scene("tear", "torn", "--steps=12", path, sizeof path), 0);
    }
    path_now = path;
    long nf = 0, c = 0;
    double *n = dataset("/frames/n_particles", &nf, &c);
    double *v = dataset("/frames/topology_version", NULL, NULL);
    CU_ASSERT_FATAL(n && v && nf == 13);
    CU_ASSERT_EQUAL(n[0], 256.0);
    CU_ASSERT(n[nf - 1] > 256.0);
    CU_ASSERT(v[nf - 1] >= 1.0);
    char name[128];
    snprintf(name, sizeof name, "/frames/topology/%d/parent", (int)v[nf - 1]);
    long rows = 0;
    double *parent = dataset(name, &rows, &c);
    CU_ASSERT_FATAL(parent && rows == (long)n[nf - 1]);
    int ok = 1;
    for (long i = 0; i < rows; i++) /* originals have none, duplicates an older particle */
        ok &= i < 256 ? parent[i] == -1.0 : parent[i] >= 0.0 && parent[i] < (double)i;
    CU_ASSERT(ok);
    double *m = dataset("/series/max_c", NULL, NULL);
    CU_ASSERT_PTR_NULL(m);
    free(m);
    free(n);
    free(v);
    free(parent);
}

void register_recompute_tests(void)
{
    CU_pSuite s = CU_add_suite("recompute", suite_init, suite_clean);
    CU_add_test(s, "series_recomputed", test_series_recomputed);
    CU_add_test(s, "tear_logged", test_tear_logged);
}
