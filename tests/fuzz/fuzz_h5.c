/* libFuzzer target: the HDF5 readers (experiments/log/h5read.c, h5check.c). A file that
 * pbd_h5_check_file passes (it reads everything in a child process, so a crash or hang of
 * libhdf5 there is contained and named) must then be read in-process by every reader the
 * programs use without crashing: a crash here is a file the check let through. */
#include <stdint.h>
#include <stdlib.h>

#include "experiments/pbd_experiments.h"
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], why[4600];
    snprintf(path, sizeof path, "/tmp/pbd-fuzz-%d.h5", (int)getpid());
    if (fuzz_write(path, data, size) != 0) return 0;
    if (pbd_h5_check_file(path, why, sizeof why) == 0) {
        char text[256];
        double v[3];
        pbd_h5_read_attr_string(path, "experiment", text, sizeof text);
        pbd_h5_read_attr_string(path, "headline", text, sizeof text);
        pbd_h5_read_attr_double(path, "steps", v);
        pbd_h5_read_attr_doubles(path, "solver.gravity", v, 3);
        static pbd_h5_names names;
        const char *groups[] = {"/tables", "/series", "/scene"};
        for (int g = 0; g < 3; g++) {
            if (pbd_h5_read_names(path, groups[g], &names) != 0) continue;
            for (int k = 0; k < names.count && k < PBD_H5_MAX_NAMES; k++) {
                char ds[300];
                double *d = NULL;
                long rows = 0, cols = 0;
                snprintf(ds, sizeof ds, "%s/%s", groups[g], names.name[k]);
                if (pbd_h5_read_dataset(path, ds, &d, &rows, &cols) == 0 && rows * cols > 0)
                    v[0] = d[rows * cols - 1]; /* the whole buffer is there */
                free(d);
            }
        }
    } else if (!*why) {
        abort(); /* a refusal always says why */
    }
    unlink(path);
    return 0;
}
