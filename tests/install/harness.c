/* make test-install: a program on the harness library (pkg-config pbdlab-harness): a
 * standard scene from experiments/scenes, stepped by the physics library, logged to an HDF5
 * run file by experiments/log. Prints the file's path and the chain's last particle's y. */
#include <stdio.h>
#include <pbdlab/experiments/pbd_experiments.h>

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : ".";
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_chain(&sp);
    if (!w) { fprintf(stderr, "harness: %s\n", pbd_last_error()); return 1; }
    pbd_h5log_options opt = {0};
    pbd_h5log *log = pbd_h5log_open(out, "install", "chain", w, &opt);
    if (!log) { fprintf(stderr, "harness: %s\n", pbd_last_error()); pbd_world_free(w); return 1; }
    for (int i = 0; i < 10; i++)
        if (pbd_step(w) != PBD_OK || pbd_h5log_step(log, w) != PBD_OK) {
            fprintf(stderr, "harness: %s\n", pbd_last_error());
            pbd_world_free(w);
            return 1;
        }
    printf("harness: %s, y %.6g m\n", pbd_h5log_path(log), w->x[3 * (w->n - 1) + 1]);
    if (pbd_h5log_finish(log) != PBD_OK) {
        fprintf(stderr, "harness: %s\n", pbd_last_error());
        return 1;
    }
    pbd_world_free(w);
    return 0;
}
