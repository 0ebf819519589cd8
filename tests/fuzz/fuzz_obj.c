/* libFuzzer target: the Wavefront OBJ loader, with the cloth and closed-surface checks. */
#include <stdint.h>
#include <stdlib.h>

#include "experiments/pbd_experiments.h"
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pbd-fuzz-%d.obj", (int)getpid());
    if (fuzz_write(path, data, size) != 0) return 0;
    const int requires[] = {0, PBD_MESH_CLOTH, PBD_MESH_CLOSED_SURFACE};
    for (int r = 0; r < 3; r++) {
        pbd_trimesh m = {0};
        pbd_status st = pbd_trimesh_load_obj(path, requires[r], &m);
        if (st == PBD_OK) {
            /* what loads is usable: indices in range */
            for (int t = 0; t < 3 * m.n_triangles; t++)
                if (m.tri[t] < 0 || m.tri[t] >= m.n_vertices) abort();
        } else if (m.n_vertices != 0 || m.n_triangles != 0) {
            abort(); /* on error the mesh stays empty */
        }
        pbd_trimesh_free(&m);
    }
    unlink(path);
    return 0;
}
