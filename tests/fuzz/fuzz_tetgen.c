/* libFuzzer target: the TetGen .node/.ele loader. The input holds both files, split at the
 * first NUL byte (.node before, .ele after). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/pbd_experiments.h"
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *split = memchr(data, 0, size);
    size_t node_size = split ? (size_t)(split - data) : size;
    char node[64], ele[64];
    snprintf(node, sizeof node, "/tmp/pbd-fuzz-%d.node", (int)getpid());
    snprintf(ele, sizeof ele, "/tmp/pbd-fuzz-%d.ele", (int)getpid());
    if (fuzz_write(node, data, node_size) != 0) return 0;
    if (split && fuzz_write(ele, split + 1, size - node_size - 1) != 0) return 0;
    if (!split) unlink(ele);
    pbd_tetmesh m = {0};
    if (pbd_tetmesh_load_tetgen(node, &m) == PBD_OK) {
        for (int t = 0; t < 4 * m.n_tets; t++)
            if (m.tet[t] < 0 || m.tet[t] >= m.n_vertices) abort();
    } else if (m.n_vertices != 0 || m.n_tets != 0) {
        abort();
    }
    pbd_tetmesh_free(&m);
    unlink(node);
    unlink(ele);
    return 0;
}
