/* libFuzzer target: the command-line parser with pbd-run's option table.
 * The input is split at NUL and newline bytes into argv words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/pbd_experiments.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[64];
    int argc = 0;
    argv[argc++] = "pbd-run";
    char *word = buf;
    for (size_t i = 0; i <= size && argc < 63; i++)
        if (buf[i] == '\0' || buf[i] == '\n') {
            buf[i] = '\0';
            if (word != buf + i) argv[argc++] = word;
            word = buf + i + 1;
        }
    argv[argc] = NULL;
    pbd_solver_def def = pbd_solver_def_default();
    pbd_scene_params sp = pbd_scene_params_default();
    cli_option opts[PBD_MAX_OPTIONS];
    int n = pbd_solver_options(&def, opts);
    n += pbd_scene_options(&sp, opts + n);
    const char *positional[2];
    int np = 0;
    int rc = cli_parse("pbd-run", "pbd-run SCENE [options]", argc, argv, 1, opts, n, positional, 2,
                       &np);
    /* a successful parse leaves a definition that validates, and the scene parameters are
     * within the ranges the table states */
    if (rc == CLI_OK && pbd_solver_def_validate(&def) != PBD_OK) abort();
    if (rc == CLI_OK && !(sp.stiffness >= 0.0 && sp.stiffness <= 1.0)) abort();
    free(buf);
    return 0;
}
