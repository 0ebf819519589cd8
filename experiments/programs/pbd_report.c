/* pbd-report [RESULTS_DIR]: data/results/report.html — for each experiment of the suite its
 * headline beside the paper's number, its figures, the parameters the runs were made with
 * and the runs that were merged; then the gradient checker's table (gradcheck.h5).
 * The per-experiment merge (summary.h5) is made by `pbd-run <experiment> --summarize`,
 * which analysis/make_plots.sh runs first (`make report` depends on `make plots`).
 * A RESULTS_DIR without any experiment's summary.h5 is an error (exit status 1). */
#include "experiments/pbd_experiments.h"

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The experiments of the suite, in the report's order, with what each needs; a name missing
 * from the build's experiment table is reported as not available. */
static const struct {
    const char *name, *needs;
} suite[] = {
    {"stiffness_vs_iterations", "PBD/XPBD, distance constraints"},
    {"spring_oscillator", "PBD/XPBD, distance constraints"},
    {"chain_forces", "the Newton reference solver (pbd_newton_step)"},
    {"convergence", "Jacobi / coloured Gauss-Seidel, the Newton reference and a tet beam"},
    {"xpbd_vs_implicit", "the sparse Newton reference (SuiteSparse) and --reference=newton"},
    {"substeps_vs_iterations", "substeps"},
    {"momentum_drift", "momentum-conserving damping and tetrahedral constraints"},
    {"stretch_bend_independence", "bending constraints (dihedral, isometric)"},
    {"balloon_pressure", "the balloon volume constraint and an icosphere mesh"},
    {"tet_inversion", "tetrahedral volume and plane constraints"},
    {"material_beam", "the FEM, Stable Neo-Hookean and strain-based tet materials, the static "
     "Newton solution (pbd_exp_static_equilibrium)"},
    {"poisson", "the Stable Neo-Hookean tet (snh_tet) and its coupled blocks"},
    {"long_range_attachments", "long-range attachments on the cloth scene (geodesic rest lengths)"},
    {"solver_families", "VBD, AVBD and Projective Dynamics (--method=vbd|avbd|pd) and the "
     "Newton reference"},
    {"fluid_density", "Position Based Fluids (solver/fluid/): the fluid_density constraint, the "
     "neighbour search, the dam_break and fluid_rest scenes"},
    {"rod_cantilever", "Cosserat rods (orientations, rod_stretch_shear, rod_bend_twist) and the "
     "elastica (GSL's ODE solvers)"},
    {"rod_twist", "Cosserat rods (orientations, rod_bend_twist's twist component) and the "
     "torsion of a straight rod (linear twist at rest, the wave speed sqrt(G J/(rho I_p)))"},
    {"contact", "colliders with Coulomb friction and restitution, self collision and rigid "
     "coupling (solver/collision/) and the contact scenes"},
    {"rigid_pendulum", "XPBD rigid bodies with hinge joints (solver/rigid/) and an independent "
     "integration of the chain's equations of motion (GSL's ODE solvers)"},
    {"rigid_free_body", "XPBD rigid bodies: the gyroscopic term (solver/rigid/)"},
    {"rigid_friction", "XPBD rigid bodies: ground contacts with Coulomb friction (solver/rigid/)"},
    {"rigid_restitution", "XPBD rigid bodies: ground contacts with restitution (solver/rigid/)"},
    {"rigid_stack", "XPBD rigid bodies: box-box contacts and ball joints (solver/rigid/)"},
    {"scaling", "Jacobi / coloured Gauss-Seidel with OpenMP threads"},
    {"gradcheck", "the gradient checker (pbd-gradcheck)"},
};

static void html(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A text shown whole when short; longer ones (a headline listing every run, a list of runs)
 * open on a click: the first clause, then the rest inside <details>. */
static void collapsible(FILE *out, const char *s, size_t limit)
{
    size_t len = s ? strlen(s) : 0, cut = 0;
    if (len <= limit) {
        html(out, s);
        return;
    }
    for (size_t i = limit / 3; i < limit && !cut; i++) /* the first clause's end */
        if ((s[i] == ';' || s[i] == '.' || s[i] == ':') && s[i + 1] == ' ') cut = i + 1;
    for (size_t i = limit; !cut && i > 0; i--)
        if (s[i] == ' ') cut = i;
    if (!cut) cut = limit;
    char *head = malloc(cut + 1);
    if (!head) {
        html(out, s);
        return;
    }
    memcpy(head, s, cut);
    head[cut] = '\0';
    fputs("<details class=\"more\"><summary>", out);
    html(out, head);
    fputs(" &hellip;</summary>", out);
    html(out, s + cut);
    fputs("</details>", out);
    free(head);
}

/* One name/value row of a parameters table. */
static void param_row(FILE *out, const char *name, const char *value)
{
    fputs("<tr><th>", out);
    html(out, name);
    fputs("</th><td>", out);
    html(out, value);
    fputs("</td></tr>\n", out);
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- attributes as text --------------------------------------------------------------- */

/* A number as the report writes it: never a raw nan or inf (the legend under the summary
 * table: "—" not measured or not reached, "∞" no bound). */
static void number_text(double v, char *buf, size_t size, const char *sep)
{
    if (isnan(v)) snprintf(buf, size, "%s\u2014", sep);
    else if (isinf(v)) snprintf(buf, size, "%s%s\u221e", sep, v < 0 ? "-" : "");
    else snprintf(buf, size, "%s%.6g", sep, v);
}

static void attr_text(hid_t a, char *buf, size_t size)
{
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    buf[0] = '\0';
    if (H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            if (H5Aread(a, mt, &v) >= 0 && v) snprintf(buf, size, "%s", v);
            if (v) H5free_memory(v);
            H5Tclose(mt);
        } else {
            size_t len = H5Tget_size(t);
            char *v = calloc(len + 1, 1);
            if (v && H5Aread(a, t, v) >= 0) snprintf(buf, size, "%s", v);
            free(v);
        }
    } else if ((H5Tget_class(t) == H5T_FLOAT || H5Tget_class(t) == H5T_INTEGER) && n > 0 &&
               n <= 64) {
        double v[64];
        if (H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
            for (hssize_t i = 0; i < n; i++) {
                size_t len = strlen(buf);
                number_text(v[i], buf + len, size - len, i ? " " : "");
            }
    }
    H5Sclose(s);
    H5Tclose(t);
}

/* The attribute's whole text, malloc'd (NULL when out of memory): strings as long as they
 * are, numbers through attr_text. */
static char *attr_dup(hid_t a)
{
    hid_t t = H5Aget_type(a);
    int is_string = H5Tget_class(t) == H5T_STRING;
    size_t size = is_string && H5Tis_variable_str(t) <= 0 ? H5Tget_size(t) + 1 : 2048;
    H5Tclose(t);
    char *v = NULL;
    if (is_string && size == 2048) { /* variable length: ask HDF5 for the whole string */
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        char *s = NULL;
        if (H5Aread(a, mt, &s) >= 0 && s) size = strlen(s) + 1;
        if (s) H5free_memory(s);
        H5Tclose(mt);
    }
    if ((v = malloc(size))) attr_text(a, v, size);
    return v;
}

typedef struct attr_list {
    char (*names)[128];
    char **values; /* each malloc'd, whole (attr_dup) */
    int n, cap;
} attr_list;

static herr_t collect_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_list *l = data;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        void *a = realloc(l->names, (size_t)cap * sizeof *l->names);
        if (!a) return -1;
        l->names = a;
        void *b = realloc(l->values, (size_t)cap * sizeof *l->values);
        if (!b) return -1;
        l->values = b;
        l->cap = cap;
    }
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return 0;
    snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
    l->values[l->n] = attr_dup(a);
    H5Aclose(a);
    if (l->values[l->n]) l->n++;
    return 0;
}

static int read_attrs(const char *path, const char *object, attr_list *l)
{
    memset(l, 0, sizeof *l);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t o = H5Oopen(f, object, H5P_DEFAULT);
    if (o >= 0) {
        H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_attr, l);
        H5Oclose(o);
    }
    H5Fclose(f);
    return 0;
}

static void free_attrs(attr_list *l)
{
    for (int i = 0; i < l->n; i++) free(l->values[i]);
    free(l->names);
    free(l->values);
}

static const char *attr_get(const attr_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0) return l->values[i];
    return NULL;
}

/* ---- figures ------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int print_figures(FILE *out, const char *results, const char *exp)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/figures", results);
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[256];
    int n = 0;
    size_t plen = strlen(exp);
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, exp, plen) == 0 && e->d_name[plen] == '_' && len > 4 &&
            strcmp(e->d_name + len - 4, ".png") == 0) {
            names[n] = malloc(len + 1);
            if (names[n]) strcpy(names[n++], e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    if (n) fputs("<div class=\"figs\">\n", out);
    for (int i = 0; i < n; i++) {
        char svg[512];
        snprintf(svg, sizeof svg, "%.*s.svg", (int)strlen(names[i]) - 4, names[i]);
        fprintf(out, "<figure><a href=\"figures/%s\"><img src=\"figures/%s\" alt=\"%s\"></a>"
                "<figcaption>%s (<a href=\"figures/%s\">SVG</a>)</figcaption></figure>\n",
                names[i], names[i], names[i], names[i], svg);
        free(names[i]);
    }
    if (n) fputs("</div>\n", out);
    return n;
}

/* ---- corrupt inputs --------------------------------------------------------------------- */

/* Files named corrupt (or not regular) so far: the report names each, and so does the exit
 * status (1). */
static int corrupt_inputs;

/* 1 when path can be read (pbd_h5_check_file reads it all in a child process first: a
 * corrupt file never crashes or hangs the report); else one line on stderr, a line in the
 * report (out, and row when given: the summary table's cell), and 0. */
static int fit_to_read(FILE *out, FILE *row, const char *name, const char *path)
{
    char why[4600];
    if (pbd_h5_check_file(path, why, sizeof why) == 0) return 1;
    corrupt_inputs++;
    fprintf(stderr, "pbd-report: %s\n", why);
    fputs("<p class=\"missing\">Corrupt input, not read: ", out);
    html(out, why);
    fputs("</p>\n", out);
    if (row) {
        fprintf(row, "<tr><td><a href=\"#%s\">%s</a></td><td class=\"missing\">corrupt "
                "input: ", name, name);
        html(row, why);
        fputs("</td><td></td></tr>\n", row);
    }
    return 0;
}

/* ---- one experiment ------------------------------------------------------------------ */

static void print_parameters(FILE *out, const char *results, const char *exp, const char *runs)
{
    /* the parameters of the first merged run; values that differ between runs are the
     * sweep's, named in the run names */
    char first[256] = "";
    sscanf(runs, "%255s", first);
    if (!*first) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s.h5", results, exp, first);
    attr_list l;
    if (!file_exists(path) || !fit_to_read(out, NULL, exp, path) || read_attrs(path, "/", &l) != 0)
        return;
    fprintf(out, "<details><summary>Parameters (root attributes of <code>%s/%s.h5</code>; the "
            "sweep varies what the run names say)</summary>\n<table class=\"params\">\n", exp, first);
    for (int i = 0; i < l.n; i++) {
        if (strncmp(l.names[i], "result.", 7) == 0) continue;
        param_row(out, l.names[i], l.values[i]);
    }
    fputs("</table></details>\n", out);
    free_attrs(&l);
}

static void print_experiment(FILE *out, const char *results, int k, FILE *summary_rows)
{
    const char *name = suite[k].name;
    const pbd_experiment *e = pbd_experiment_find(name);
    fprintf(out, "<h2 id=\"%s\">%d. %s</h2>\n", name, k + 1, name);
    char sum_path[4096];
    snprintf(sum_path, sizeof sum_path, "%s/%s/summary.h5", results, name);
    if (!e) {
        fprintf(out, "<p class=\"missing\">Not available in this build: the driver needs %s, "
                "which is not in this revision yet.</p>\n", suite[k].needs);
        fprintf(summary_rows, "<tr><td><a href=\"#%s\">%s</a></td><td class=\"missing\">not "
                "available (needs %s)</td><td></td></tr>\n", name, name, suite[k].needs);
        return;
    }
    if (file_exists(sum_path) && !fit_to_read(out, summary_rows, name, sum_path)) return;
    attr_list l;
    int have = file_exists(sum_path) && read_attrs(sum_path, "/", &l) == 0;
    /* the summary's description says what the runs were (QUICK sizes) */
    const char *described = have ? attr_get(&l, "description") : NULL;
    fputs("<p>", out);
    html(out, described ? described : e->description);
    fputs("</p>\n", out);
    if (!have) {
        {
            fprintf(out, "<p class=\"missing\">No results: run <code>make experiments</code> or "
                    "<code>build/pbd-run %s</code>.</p>\n", name);
            fprintf(summary_rows, "<tr><td><a href=\"#%s\">%s</a></td><td class=\"missing\">not "
                    "run</td><td>", name, name);
            html(summary_rows, e ? e->paper : "");
            fputs("</td></tr>\n", summary_rows);
        }
        return;
    }
    const char *headline = attr_get(&l, "headline"), *paper = attr_get(&l, "paper");
    const char *merged = attr_get(&l, "runs_merged"), *missing = attr_get(&l, "runs_missing");
    const char *quick = attr_get(&l, "quick");
    fprintf(out, "<table class=\"headline\"><tr><th>ours</th><td>");
    html(out, headline);
    fprintf(out, "</td></tr><tr><th>paper</th><td>");
    html(out, paper);
    fprintf(out, "</td></tr></table>\n");
    const char *note = attr_get(&l, "note"); /* the driver's word on the comparison */
    if (note && *note) {
        fputs("<div class=\"note\"><b>Note:</b> ", out);
        collapsible(out, note, 320);
        fputs("</div>\n", out);
    }
    const char *findings = attr_get(&l, "findings"); /* declared run-aways (runaway.c) */
    if (findings && *findings) {
        fputs("<p class=\"finding\"><b>Findings</b> (runs that diverged: a declared "
              "run-away stopped by the divergence watchdog, or a run past the physical bound "
              "its experiment declares; experiments/README.md \"Run-aways as findings\"):<br>",
              out);
        for (const char *p = findings; *p;) {
            size_t n = strcspn(p, "\n");
            for (size_t i = 0; i < n; i++) {
                char c[2] = {p[i], '\0'};
                html(out, c);
            }
            fputs("<br>", out);
            p += n + (p[n] == '\n');
        }
        fputs("</p>\n", out);
    }
    if (quick && atof(quick) != 0.0)
        fputs("<p class=\"missing\">Reduced (--quick) sweep: sizes and durations are smaller "
              "than the full suite's.</p>\n", out);
    fprintf(summary_rows, "<tr><td><a href=\"#%s\">%s</a></td><td>", name, name);
    collapsible(summary_rows, headline, 240);
    fputs("</td><td>", summary_rows);
    collapsible(summary_rows, paper, 160);
    fputs("</td></tr>\n", summary_rows);
    if (!print_figures(out, results, name))
        fputs("<p class=\"missing\">No figures: run <code>make plots</code>.</p>\n", out);
    int n_merged = 0; /* the run names, space-separated */
    for (const char *p = merged; p && *p; p += strspn(p, " ")) {
        size_t w = strcspn(p, " ");
        n_merged += w > 0;
        p += w;
    }
    fprintf(out, "<details><summary>Runs merged: %d</summary><p>", n_merged);
    html(out, merged);
    fputs("</p></details>\n", out);
    if (missing && *missing) {
        fputs("<p class=\"missing\">Runs missing: ", out);
        html(out, missing);
        fputs("</p>\n", out);
    }
    if (merged) print_parameters(out, results, name, merged);
    free_attrs(&l);
}

/* One row per constraint type: the attributes of each group of the gradient checker's file. */
static herr_t gradcheck_row(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    FILE *out = data;
    H5O_info_t oi;
    if (H5Oget_info_by_name(loc, name, &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_GROUP) return 0;
    static const char *const cols[] = {"arity", "samples", "checked", "skipped", "max_rel_err",
                                       "taylor_order", "momentum", "momentum_err",
                                       "degenerate_samples", "degenerate_nonfinite",
                                       "hessian_max_rel_err", "hessian_taylor_order", "pass"};
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0) return 0;
    fputs("<tr><td>", out);
    html(out, name);
    fputs("</td>", out);
    for (unsigned c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        char v[128] = "";
        if (H5Aexists(g, cols[c]) > 0) {
            hid_t a = H5Aopen(g, cols[c], H5P_DEFAULT);
            attr_text(a, v, sizeof v);
            H5Aclose(a);
        }
        if (strcmp(cols[c], "pass") == 0) snprintf(v, sizeof v, "%s", atof(v) == 1.0 ? "PASS" : "FAIL");
        char *end; /* measured values to 3 digits: the table fits the page */
        double x = strtod(v, &end);
        if (end != v && *end == '\0' && x != (long)x) snprintf(v, sizeof v, "%.3g", x);
        /* a Taylor order of +inf: C linear along the direction (analysis/README.md) */
        if (strstr(cols[c], "taylor_order") && strcmp(v, "\u221e") == 0) snprintf(v, sizeof v, "exact");
        fprintf(out, "<td%s>", strcmp(v, "FAIL") == 0 ? " class=\"missing\"" : "");
        html(out, v);
        fputs("</td>", out);
    }
    fputs("</tr>\n", out);
    H5Gclose(g);
    return 0;
}

static void print_gradcheck(FILE *out, const char *results)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/gradcheck/all.h5", results);
    if (!file_exists(path)) snprintf(path, sizeof path, "%s/gradcheck.h5", results);
    if (!file_exists(path)) {
        fprintf(out, "<p class=\"missing\">No gradient-check results: run <code>make "
                "experiments</code> or <code>make gradcheck</code>.</p>\n");
        return;
    }
    fputs("<p>From <code>", out);
    html(out, path);
    fputs("</code> (the columns: analysis/README.md \"Gradient check\"; <b>exact</b>: C is "
          "linear along the test direction, the order cannot be measured and counts as "
          "passed; <b>&mdash;</b>: not checked, the type has no scalar C; Hessian columns "
          "empty: no analytic Hessian, the Newton reference differences the gradient):</p>\n"
          "<div class=\"wide\"><table class=\"data\"><tr><th>type</th><th>arity</th>"
          "<th>samples</th><th>checked</th><th>skipped</th><th>max rel. error</th>"
          "<th>Taylor order</th><th>momentum</th><th>momentum error</th><th>degenerate "
          "samples</th><th>degenerate non-finite</th><th>Hessian max rel. error</th>"
          "<th>Hessian Taylor order</th><th>verdict</th></tr>\n", out);
    if (!fit_to_read(out, NULL, "gradcheck", path)) {
        fputs("</table>\n", out);
        return;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, gradcheck_row, out);
        H5Fclose(f);
    }
    fputs("</table></div>\n", out);
    attr_list l;
    if (read_attrs(path, "/", &l) == 0 && l.n > 0) {
        fputs("<details><summary>Settings of the check</summary><table class=\"params\">\n", out);
        for (int i = 0; i < l.n; i++) {
            param_row(out, l.names[i], l.values[i]);
        }
        fputs("</table></details>\n", out);
        free_attrs(&l);
    }
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *results = "data/results", *output = NULL;
    cli_option opts[] = {
        {"output", CLI_STRING, &output, 0, 0, 0, "the HTML file (default RESULTS/report.html)",
         NULL},
    };
    const char *pos[1];
    int np = 0;
    int rc = cli_parse("pbd-report", "pbd-report [RESULTS_DIR] [options]\n\nWrites the HTML report "
                       "of the experiment suite from RESULTS_DIR (default data/results).",
                       argc, argv, 1, opts, 1, pos, 1, &np);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (np) results = pos[0];
    struct stat rs;
    if (stat(results, &rs) != 0 || !S_ISDIR(rs.st_mode)) {
        fprintf(stderr, "pbd-report: RESULTS_DIR: expected a directory of results, found '%s' "
                "(%s)\n", results, stat(results, &rs) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/report.html", results);
    if (output) snprintf(out_path, sizeof out_path, "%s", output);
    int n_suite = (int)(sizeof suite / sizeof suite[0]), n_found = 0;
    for (int k = 0; k < n_suite; k++) {
        char sum_path[4096];
        snprintf(sum_path, sizeof sum_path, "%s/%s/summary.h5", results, suite[k].name);
        n_found += file_exists(sum_path);
    }
    if (n_found == 0) { /* a report of nothing is a wrong directory, not a report */
        fprintf(stderr, "pbd-report: %s: expected the merged results of at least one experiment "
                "(<experiment>/summary.h5, made by make plots RESULTS=%s), found none\n", results,
                results);
        return 1;
    }
    pbd_interrupt_install_cleanup(); /* SIGINT/SIGTERM: no report.html.partial-<pid> left */
    pbd_atomic_file atomic;
    FILE *out = pbd_atomic_fopen(&atomic, out_path);
    if (!out) {
        fprintf(stderr, "pbd-report: %s\n", pbd_last_error());
        return 3;
    }
    FILE *rows = tmpfile(), *body = tmpfile();
    if (!rows || !body) {
        fprintf(stderr, "pbd-report: %s: cannot write the report: %s\n", atomic.tmp,
                strerror(errno));
        pbd_atomic_abort(&atomic);
        return 3;
    }
    for (int k = 0; k < n_suite; k++) {
        print_experiment(body, results, k, rows);
        if (strcmp(suite[k].name, "gradcheck") == 0) print_gradcheck(body, results);
    }
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>pbdlab experiment report</title>\n<style>\n"
            "body{font-family:sans-serif;max-width:1320px;margin:2em auto;padding:0 1em;"
            "line-height:1.4}\n"
            "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;"
            "padding:3px 8px;text-align:left;vertical-align:top}\n"
            /* names are never broken: a table too wide scrolls in its own box (.wide) */
            "table.data{font-size:0.85em}table.data td{font-family:monospace;text-align:right;"
            "white-space:nowrap}\n"
            "table.data td:first-child{text-align:left}\n"
            "table.summary td:first-child,table.params th{white-space:nowrap}\n"
            "table.params td{overflow-wrap:anywhere}\n"
            "details.more{display:inline}details.more summary{display:inline;cursor:pointer}\n"
            "details.more[open] summary{display:inline}\n"
            ".missing{color:#a33}\n.finding{color:#750;background:#fff8e6;padding:4px}\n"
            ".note{background:#eef4fb;padding:4px}\n.figs{display:flex;flex-wrap:wrap;gap:8px}\n"
            ".wide{overflow-x:auto;max-width:100%%}\n"
            "figure{margin:0;width:640px}figure img{width:100%%;border:1px solid #ddd}\n"
            "table.headline th{width:4em}code{background:#f3f3f3}\n"
            "</style></head><body>\n<h1>pbdlab experiment report</h1>\n"
            "<p>Generated %s by pbd-report (pbdlab %s) from <code>", date, PBD_VERSION);
    html(out, results);
    fprintf(out, "</code>. Every figure is regenerated by <code>make plots</code>, this page by "
            "<code>make report</code>; each run's HDF5 file holds the parameters, git revision "
            "and compiler it was made with. In every table and text, <b>&mdash;</b> is a value "
            "not measured or not reached, <b>&infin;</b> no bound, and a run that left the "
            "physical bounds its experiment declares reads <b>diverged at step N</b>: a finding, "
            "not a measurement (experiments/README.md \"Run-aways as findings\").</p>\n"
            "<h2>Summary: ours beside the paper</h2>\n"
            "<table class=\"summary\"><tr><th>experiment</th><th>ours</th><th>paper</th></tr>\n");
    char buf[8192];
    size_t len;
    rewind(rows);
    while ((len = fread(buf, 1, sizeof buf, rows)) > 0) fwrite(buf, 1, len, out);
    fputs("</table>\n", out);
    rewind(body);
    while ((len = fread(buf, 1, sizeof buf, body)) > 0) fwrite(buf, 1, len, out);
    fputs("</body></html>\n", out);
    fclose(rows);
    fclose(body);
    if (pbd_atomic_fclose(&atomic, out, 0) != PBD_OK) {
        fprintf(stderr, "pbd-report: %s\n", pbd_last_error());
        return 3;
    }
    printf("pbd: report in %s\n", out_path);
    if (corrupt_inputs) { /* the report names them; so does the exit status */
        fprintf(stderr, "pbd-report: %d corrupt input file%s (named above and in %s)\n",
                corrupt_inputs, corrupt_inputs == 1 ? "" : "s", out_path);
        return 1;
    }
    return 0;
}
