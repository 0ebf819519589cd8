/* pbd-report [RESULTS_DIR]: data/results/report.html — for each experiment of the suite its
 * headline beside the paper's number, its figures, the parameters the runs were made with
 * and the runs that were merged; then the gradient checker's table (gradcheck.h5).
 * The per-experiment merge (summary.h5) is made by `pbd-run <experiment> --summarize`,
 * which analysis/make_plots.sh runs first (`make report` depends on `make plots`). */
#include "../experiments/pbd_experiments.h"

#include <dirent.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The eleven experiments of the suite (issue 6), in the report's order, with what each
 * needs; a name missing from the build's experiment table is reported as not available. */
static const struct {
    const char *name, *needs;
} suite[] = {
    {"stiffness_vs_iterations", "PBD/XPBD, distance constraints"},
    {"spring_oscillator", "PBD/XPBD, distance constraints"},
    {"chain_forces", "the Newton reference solver (pbd_newton_step)"},
    {"convergence", "Jacobi / coloured Gauss-Seidel, the Newton reference and a tet beam"},
    {"substeps_vs_iterations", "substeps"},
    {"momentum_drift", "momentum-conserving damping and tetrahedral constraints"},
    {"stretch_bend_independence", "bending constraints (dihedral, isometric)"},
    {"balloon_pressure", "the balloon volume constraint and an icosphere mesh"},
    {"tet_inversion", "tetrahedral volume and plane constraints"},
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

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- attributes as text --------------------------------------------------------------- */

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
                snprintf(buf + len, size - len, "%s%.6g", i ? " " : "", v[i]);
            }
    }
    H5Sclose(s);
    H5Tclose(t);
}

typedef struct attr_list {
    char (*names)[128];
    char (*values)[512];
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
    attr_text(a, l->values[l->n], sizeof l->values[0]);
    H5Aclose(a);
    l->n++;
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
    free(l->names);
    free(l->values);
}

static const char *attr_get(const attr_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0) return l->values[i];
    return NULL;
}

/* ---- tables of a file: compound datasets and 2-D numeric ones with "columns" --------- */

static void print_compound(FILE *out, hid_t d)
{
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    hssize_t rows = H5Sget_simple_extent_npoints(s);
    int nm = H5Tget_nmembers(t);
    if (rows < 0 || rows > 100000 || nm <= 0) goto done;
    fprintf(out, "<table class=\"data\"><tr>");
    for (int m = 0; m < nm; m++) {
        char *name = H5Tget_member_name(t, (unsigned)m);
        fputs("<th>", out);
        html(out, name);
        fputs("</th>", out);
        H5free_memory(name);
    }
    fputs("</tr>\n", out);
    /* read each member on its own: numbers as double, strings as fixed-size text */
    double **num = calloc((size_t)nm, sizeof *num);
    char **str = calloc((size_t)nm, sizeof *str);
    size_t *slen = calloc((size_t)nm, sizeof *slen);
    for (int m = 0; num && str && slen && m < nm; m++) {
        char *name = H5Tget_member_name(t, (unsigned)m);
        hid_t mt = H5Tget_member_type(t, (unsigned)m);
        H5T_class_t cls = H5Tget_class(mt);
        if (cls == H5T_STRING && H5Tis_variable_str(mt) <= 0) {
            slen[m] = H5Tget_size(mt) + 1;
            hid_t st = H5Tcopy(H5T_C_S1);
            H5Tset_size(st, slen[m]);
            hid_t ct = H5Tcreate(H5T_COMPOUND, slen[m]);
            H5Tinsert(ct, name, 0, st);
            str[m] = calloc((size_t)rows ? (size_t)rows : 1, slen[m]);
            if (str[m] && H5Dread(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, str[m]) < 0) {
                free(str[m]);
                str[m] = NULL;
            }
            H5Tclose(ct);
            H5Tclose(st);
        } else if (cls == H5T_FLOAT || cls == H5T_INTEGER || cls == H5T_ENUM) {
            hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(double));
            H5Tinsert(ct, name, 0, H5T_NATIVE_DOUBLE);
            num[m] = calloc((size_t)rows ? (size_t)rows : 1, sizeof(double));
            if (num[m] && H5Dread(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, num[m]) < 0) {
                free(num[m]);
                num[m] = NULL;
            }
            H5Tclose(ct);
        }
        H5Tclose(mt);
        H5free_memory(name);
    }
    for (hssize_t r = 0; num && str && r < rows; r++) {
        fputs("<tr>", out);
        for (int m = 0; m < nm; m++) {
            fputs("<td>", out);
            if (str[m]) html(out, str[m] + (size_t)r * slen[m]);
            else if (num[m]) fprintf(out, "%.4g", num[m][r]);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
    for (int m = 0; num && str && m < nm; m++) {
        free(num[m]);
        free(str[m]);
    }
    free(num);
    free(str);
    free(slen);
done:
    H5Sclose(s);
    H5Tclose(t);
}

typedef struct table_visit {
    FILE *out;
    const char *path;
    int printed;
} table_visit;

static herr_t visit_tables(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    table_visit *v = data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    if (d < 0) return 0;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(s);
    H5T_class_t cls = H5Tget_class(t);
    if (cls == H5T_COMPOUND && rank == 1) {
        fprintf(v->out, "<h4>/");
        html(v->out, name);
        fprintf(v->out, "</h4>\n");
        print_compound(v->out, d);
        v->printed++;
    } else if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && rank == 2 &&
               H5Aexists(d, "columns") > 0) {
        char cols[1024] = "";
        H5LTget_attribute_string(d, ".", "columns", cols);
        double *data;
        long rows, ncol;
        char full[1024];
        snprintf(full, sizeof full, "/%s", name);
        if (pbd_h5_read_dataset(v->path, full, &data, &rows, &ncol) == 0) {
            fprintf(v->out, "<h4>");
            html(v->out, full);
            fprintf(v->out, "</h4>\n<table class=\"data\"><tr>");
            for (char *c = strtok(cols, " "); c; c = strtok(NULL, " ")) {
                fputs("<th>", v->out);
                html(v->out, c);
                fputs("</th>", v->out);
            }
            fputs("</tr>\n", v->out);
            for (long r = 0; r < rows; r++) {
                fputs("<tr>", v->out);
                for (long c = 0; c < ncol; c++) fprintf(v->out, "<td>%.4g</td>", data[r * ncol + c]);
                fputs("</tr>\n", v->out);
            }
            fputs("</table>\n", v->out);
            free(data);
            v->printed++;
        }
    }
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    return 0;
}

static int print_tables(FILE *out, const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    table_visit v = {out, path, 0};
    H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, visit_tables, &v);
    H5Fclose(f);
    return v.printed;
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
    if (read_attrs(path, "/", &l) != 0) return;
    fprintf(out, "<details><summary>Parameters (root attributes of <code>%s/%s.h5</code>; the "
            "sweep varies what the run names say)</summary>\n<table class=\"params\">\n", exp, first);
    for (int i = 0; i < l.n; i++) {
        if (strncmp(l.names[i], "result.", 7) == 0) continue;
        fputs("<tr><th>", out);
        html(out, l.names[i]);
        fputs("</th><td>", out);
        html(out, l.values[i]);
        fputs("</td></tr>\n", out);
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
    int is_gradcheck = strcmp(name, "gradcheck") == 0;
    if (!e && !is_gradcheck) {
        fprintf(out, "<p class=\"missing\">Not available in this build: the driver needs %s, "
                "which is not in this revision yet.</p>\n", suite[k].needs);
        fprintf(summary_rows, "<tr><td><a href=\"#%s\">%s</a></td><td class=\"missing\">not "
                "available (needs %s)</td><td></td></tr>\n", name, name, suite[k].needs);
        return;
    }
    if (e) {
        fputs("<p>", out);
        html(out, e->description);
        fputs("</p>\n", out);
    }
    if (is_gradcheck) {
        fputs("<p>The gradient checker compares every constraint type's analytic gradient with "
              "central finite differences on random and near-degenerate instances.</p>\n", out);
        return;
    }
    attr_list l;
    if (!file_exists(sum_path) || read_attrs(sum_path, "/", &l) != 0) {
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
    if (quick && atof(quick) != 0.0)
        fputs("<p class=\"missing\">Reduced (--quick) sweep: sizes and durations are smaller "
              "than the full suite's.</p>\n", out);
    fprintf(summary_rows, "<tr><td><a href=\"#%s\">%s</a></td><td>", name, name);
    html(summary_rows, headline);
    fputs("</td><td>", summary_rows);
    html(summary_rows, paper);
    fputs("</td></tr>\n", summary_rows);
    if (!print_figures(out, results, name))
        fputs("<p class=\"missing\">No figures: run <code>make plots</code>.</p>\n", out);
    fputs("<p>Runs merged: ", out);
    html(out, merged);
    if (missing && *missing) {
        fputs("<br><span class=\"missing\">Runs missing: ", out);
        html(out, missing);
        fputs("</span>", out);
    }
    fputs("</p>\n", out);
    if (merged) print_parameters(out, results, name, merged);
    free_attrs(&l);
}

static void print_gradcheck(FILE *out, const char *results)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/gradcheck.h5", results);
    if (!file_exists(path)) {
        fprintf(out, "<p class=\"missing\">No gradient-check results (<code>%s</code>): run "
                "<code>make gradcheck</code>.</p>\n", path);
        return;
    }
    attr_list l;
    if (read_attrs(path, "/", &l) == 0 && l.n > 0) {
        fputs("<table class=\"params\">\n", out);
        for (int i = 0; i < l.n; i++) {
            fputs("<tr><th>", out);
            html(out, l.names[i]);
            fputs("</th><td>", out);
            html(out, l.values[i]);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
        free_attrs(&l);
    }
    if (!print_tables(out, path))
        fprintf(out, "<p class=\"missing\"><code>%s</code> holds no table this report can "
                "read.</p>\n", path);
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
    char out_path[4096], tmp_path[4200];
    snprintf(out_path, sizeof out_path, "%s/report.html", results);
    if (output) snprintf(out_path, sizeof out_path, "%s", output);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", out_path);
    FILE *out = fopen(tmp_path, "w");
    FILE *rows = tmpfile(), *body = tmpfile();
    if (!out || !rows || !body) {
        fprintf(stderr, "pbd-report: %s: cannot write the report\n", tmp_path);
        return 3;
    }
    int n_suite = (int)(sizeof suite / sizeof suite[0]);
    for (int k = 0; k < n_suite; k++) {
        print_experiment(body, results, k, rows);
        if (strcmp(suite[k].name, "gradcheck") == 0) {
            print_gradcheck(body, results);
            char path[4096];
            snprintf(path, sizeof path, "%s/gradcheck.h5", results);
            fprintf(rows, "<tr><td><a href=\"#gradcheck\">gradcheck</a></td><td>%s</td><td>"
                    "analytic gradients agree with finite differences</td></tr>\n",
                    file_exists(path) ? "table below" : "<span class=\"missing\">not run</span>");
        }
    }
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>pbdlab experiment report</title>\n<style>\n"
            "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;"
            "line-height:1.4}\n"
            "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;"
            "padding:3px 8px;text-align:left;vertical-align:top}\n"
            "table.data td{font-family:monospace;text-align:right}\n"
            ".missing{color:#a33}\n.figs{display:flex;flex-wrap:wrap;gap:8px}\n"
            "figure{margin:0;width:540px}figure img{width:100%%;border:1px solid #ddd}\n"
            "table.headline th{width:4em}code{background:#f3f3f3}\n"
            "</style></head><body>\n<h1>pbdlab experiment report</h1>\n"
            "<p>Generated %s by pbd-report (pbdlab %s) from <code>", date, PBD_VERSION);
    html(out, results);
    fprintf(out, "</code>. Every figure is regenerated by <code>make plots</code>, this page by "
            "<code>make report</code>; each run's HDF5 file holds the parameters, git revision "
            "and compiler it was made with.</p>\n<h2>Summary: ours beside the paper</h2>\n"
            "<table><tr><th>experiment</th><th>ours</th><th>paper</th></tr>\n");
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
    if (fclose(out) != 0 || rename(tmp_path, out_path) != 0) {
        fprintf(stderr, "pbd-report: %s: cannot write the report\n", out_path);
        remove(tmp_path);
        return 3;
    }
    printf("pbd: report in %s\n", out_path);
    return 0;
}
