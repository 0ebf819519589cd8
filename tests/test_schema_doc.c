/* The HDF5 schema block of experiments/README.md "HDF5 results" against files pbd-run
 * writes: every line of the block starting with '/' is a dataset and its shape (or, ending
 * in '/', a group). Every documented dataset must be written by one of the runs below with
 * the stated rank and, where the size is a number or a name the file states (n, steps, F;
 * count, arity, n_rest of the set's group), that size; every dataset written must be
 * documented; no path twice. */
#include "tests.h"

#include <CUnit/CUnit.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOC "experiments/README.md"
enum { MAX_ENTRIES = 256, MAX_DIMS = 4 };

typedef struct {
    char path[160];          /* as written in the doc */
    regex_t re;
    int n_dims;
    char dims[MAX_DIMS][24]; /* a number or a name */
    int seen;                /* datasets of the files it matched */
    int line;
} doc_entry;

typedef struct {
    doc_entry e[MAX_ENTRIES];
    int n;
} doc_schema;

/* The doc's path as an anchored regex: NN_<type> a set, <k:06d> a frame, <v> a version. */
static void to_regex(const char *path, char *out, size_t size)
{
    size_t k = 0;
    out[k++] = '^';
    for (const char *p = path; *p && k + 32 < size;) {
        if (!strncmp(p, "NN_<type>", 9)) {
            k += (size_t)snprintf(out + k, size - k, "[0-9][0-9]_[a-z0-9_]+"), p += 9;
        } else if (!strncmp(p, "<k:06d>", 7)) {
            k += (size_t)snprintf(out + k, size - k, "[0-9]{6}"), p += 7;
        } else if (!strncmp(p, "<v>", 3)) {
            k += (size_t)snprintf(out + k, size - k, "[0-9]+"), p += 3;
        } else {
            if (strchr(".[]()*+?{}|^$\\", *p)) out[k++] = '\\';
            out[k++] = *p++;
        }
    }
    out[k++] = '$';
    out[k] = '\0';
}

/* One size word: letters, digits, '_'. */
static const char *word(const char *p, char *out, size_t size)
{
    size_t k = 0;
    while ((*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9')) && k + 1 < size)
        out[k++] = *p++;
    out[k] = '\0';
    return k ? p : NULL;
}

/* The fenced block after "`h5dump -H FILE` shows:". 0 on success; duplicate paths fail. */
static int read_doc(doc_schema *d)
{
    FILE *f = fopen(DOC, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[1024];
    int state = 0, ln = 0; /* 0: before the marker, 1: before the fence, 2: inside */
    d->n = 0;
    while (fgets(line, sizeof line, f) && state < 3) {
        ln++;
        if (state == 0 && strstr(line, "`h5dump -H FILE` shows:")) state = 1;
        else if (state == 1 && !strncmp(line, "```", 3)) state = 2;
        else if (state == 2 && !strncmp(line, "```", 3)) state = 3;
        else if (state == 2 && line[0] == '/') {
            char path[160];
            size_t k = 0;
            const char *p = line;
            while (*p && *p != ' ' && *p != '\n' && k + 1 < sizeof path) path[k++] = *p++;
            path[k] = '\0';
            if (path[k - 1] == '/') continue; /* a group */
            for (int i = 0; i < d->n; i++)
                if (!strcmp(d->e[i].path, path)) {
                    fprintf(stderr, "\n%s:%d: %s documented twice (line %d)\n", DOC, ln, path,
                            d->e[i].line);
                    CU_FAIL("a path documented twice");
                }
            CU_ASSERT_FATAL(d->n < MAX_ENTRIES);
            doc_entry *e = &d->e[d->n++];
            memset(e, 0, sizeof *e);
            snprintf(e->path, sizeof e->path, "%s", path);
            e->line = ln;
            char re[512];
            to_regex(path, re, sizeof re);
            CU_ASSERT_EQUAL_FATAL(regcomp(&e->re, re, REG_EXTENDED | REG_NOSUB), 0);
            /* the shape: SIZE ( × SIZE )* */
            while (*p == ' ') p++;
            while (e->n_dims < MAX_DIMS && (p = word(p, e->dims[e->n_dims], sizeof e->dims[0]))) {
                e->n_dims++;
                while (*p == ' ') p++;
                if (strncmp(p, "×", strlen("×"))) break;
                p += strlen("×");
                while (*p == ' ') p++;
            }
            if (e->n_dims == 0) {
                fprintf(stderr, "\n%s:%d: %s: expected a shape after the path\n", DOC, ln, path);
                CU_FAIL("a dataset line without a shape");
            }
        }
    }
    fclose(f);
    CU_ASSERT_EQUAL(state, 3);
    return d->n > 0 ? 0 : -1;
}

typedef struct {
    doc_schema *doc;
    hid_t file;
    const char *name;
    int bad;
} walk;

/* The size a name stands for in this file (-1: a free size). */
static long size_of(hid_t file, const char *dataset, const char *dim)
{
    char *end;
    long v = strtol(dim, &end, 10);
    if (*end == '\0') return v;
    const char *attr = !strcmp(dim, "n") ? "n_particles" : !strcmp(dim, "steps") ? "steps"
                       : !strcmp(dim, "F") ? "frames" : NULL;
    char group[320] = "/";
    if (!attr && (!strcmp(dim, "count") || !strcmp(dim, "arity") || !strcmp(dim, "n_rest"))) {
        snprintf(group, sizeof group, "%s", dataset);
        char *slash = strrchr(group, '/');
        if (slash) *slash = '\0';
        attr = dim;
    }
    double x = 0.0;
    if (!attr || H5Aexists_by_name(file, group, attr, H5P_DEFAULT) <= 0 ||
        H5LTget_attribute_double(file, group, attr, &x) < 0)
        return -1;
    return (long)x;
}

static herr_t visit(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    walk *wk = data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    char path[300];
    snprintf(path, sizeof path, "/%s", name);
    doc_entry *e = NULL;
    for (int i = 0; i < wk->doc->n && !e; i++)
        if (regexec(&wk->doc->e[i].re, path, 0, NULL, 0) == 0) e = &wk->doc->e[i];
    if (!e) {
        fprintf(stderr, "\n%s: %s is written but not documented in %s\n", wk->name, path, DOC);
        wk->bad++;
        return 0;
    }
    e->seen++;
    hid_t ds = H5Dopen2(root, name, H5P_DEFAULT);
    hid_t sp = H5Dget_space(ds);
    hsize_t dims[8];
    int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    H5Dclose(ds);
    if (rank != e->n_dims) {
        fprintf(stderr, "\n%s: %s has rank %d, documented (%s:%d) as %d\n", wk->name, path, rank,
                DOC, e->line, e->n_dims);
        wk->bad++;
        return 0;
    }
    for (int k = 0; k < rank; k++) {
        long want = size_of(wk->file, path, e->dims[k]);
        if (want >= 0 && (long)dims[k] != want) {
            fprintf(stderr, "\n%s: %s dimension %d is %ld, documented (%s:%d) as %s = %ld\n",
                    wk->name, path, k, (long)dims[k], DOC, e->line, e->dims[k], want);
            wk->bad++;
        }
    }
    return 0;
}

/* The runs: between them every documented dataset. */
static const char *const runs[][2] = {
    {"cloth", "cloth --resolution=4 --steps=3 --frames=1 --frame-velocities --record-iterations"},
    {"rod", "rod --resolution=4 --steps=2 --frames=1 --frame-velocities"},
    {"tet_beam", "tet_beam --resolution=4 --steps=2 --method=xpbd --compliance=1e-6 "
                 "--reference=newton"},
    {"balloon", "balloon --resolution=1 --steps=2"},
    {"cloth_sphere", "cloth_sphere --resolution=4 --steps=2"},
    {"rigid_coupling", "rigid_coupling --resolution=4 --steps=2"},
    {"chain", "chain --resolution=5 --method=newton --compliance=1e-6 --steps=2"},
    {"tear", "tear --steps=40 --frames=10"},
    {"rigid_tower", "rigid_tower --resolution=2 --steps=2 --frames=1 --frame-velocities"},
};

static void test_doc_matches_files(void)
{
    static doc_schema doc;
    CU_ASSERT_EQUAL_FATAL(read_doc(&doc), 0);
    char dir[] = "/tmp/pbd-schema-doc-XXXXXX", cmd[1024], path[512];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    int bad = 0;
    for (unsigned r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --quiet --out=%s > /dev/null", test_bin_dir(),
                 runs[r][1], dir);
        CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
        snprintf(path, sizeof path, "%s/%s/run.h5", dir, runs[r][0]);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        CU_ASSERT_FATAL(f >= 0);
        walk wk = {.doc = &doc, .file = f, .name = runs[r][1]};
        CU_ASSERT(H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, &wk, H5O_INFO_BASIC) >= 0);
        H5Fclose(f);
        bad += wk.bad;
    }
    for (int i = 0; i < doc.n; i++)
        if (!doc.e[i].seen) {
            fprintf(stderr, "\n%s:%d: %s is documented but no run wrote it\n", DOC, doc.e[i].line,
                    doc.e[i].path);
            bad++;
        }
    CU_ASSERT_EQUAL(bad, 0);
    for (int i = 0; i < doc.n; i++) regfree(&doc.e[i].re);
    test_remove_dir(dir);
}

/* stage_seconds: as many columns as its attribute `stages` names (the doc's 9). */
static void test_stage_columns_named(void)
{
    char dir[] = "/tmp/pbd-schema-doc-XXXXXX", cmd[1024], path[512], stages[1024] = "";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s/pbd-run chain --steps=1 --quiet --out=%s > /dev/null",
             test_bin_dir(), dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/chain/run.h5", dir);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    CU_ASSERT(H5LTget_attribute_string(f, "/series/stage_seconds", "stages", stages) >= 0);
    hsize_t dims[2] = {0, 0};
    CU_ASSERT(H5LTget_dataset_info(f, "/series/stage_seconds", dims, NULL, NULL) >= 0);
    H5Fclose(f);
    int words = 0;
    for (const char *p = stages; *p; p++) words += *p != ' ' && (p == stages || p[-1] == ' ');
    CU_ASSERT_EQUAL(words, (int)dims[1]);
    test_remove_dir(dir);
}

void register_schema_doc_tests(void)
{
    CU_pSuite s = CU_add_suite("schema_doc", NULL, NULL);
    CU_add_test(s, "doc_matches_files", test_doc_matches_files);
    CU_add_test(s, "stage_columns_named", test_stage_columns_named);
}
