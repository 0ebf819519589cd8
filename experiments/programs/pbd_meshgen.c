/* pbd-meshgen KIND --out=FILE [options]: write a built-in mesh as Wavefront OBJ (grid,
 * icosphere, bag) or TetGen .node/.ele (beam), e.g. the meshes under data/meshes/. */
#include "experiments/pbd_experiments.h"

#include <stdio.h>
#include <string.h>

static const char *const kinds[] = {"grid", "icosphere", "bag", "beam", NULL};

int main(int argc, char **argv)
{
    int resolution = 8, level = 2, diagonal = PBD_DIAGONAL_SAME, closed = 0, tets_per_cube = 6;
    double size = 1.0;
    const char *out = NULL;
    const cli_option opts[] = {
        {"out", CLI_STRING, &out, 0, 0, 0, "output file (.obj, or .node for the beam)", NULL},
        {"resolution", CLI_INT, &resolution, 1, 10000, 0,
         "grid: vertices per side; bag: quads per face side; beam: cubes along its length",
         NULL},
        {"level", CLI_INT, &level, 0, 8, 0, "icosphere: subdivision level", NULL},
        {"size", CLI_DOUBLE, &size, 0, 1e9, 1,
         "grid side, bag side, icosphere diameter or beam length in m", NULL},
        {"diagonal", CLI_CHOICE, &diagonal, 0, 0, 0, "grid and bag: diagonal pattern",
         pbd_diagonal_names},
        {"closed", CLI_FLAG, &closed, 0, 0, 0, "bag: with its top face (a closed box)", NULL},
        {"tets-per-cube", CLI_INT, &tets_per_cube, 5, 6, 0, "beam: 5 or 6 tets per cube", NULL},
    };
    const int n_opts = (int)(sizeof opts / sizeof opts[0]);
    const char *positional[1];
    int np = 0;
    int rc = cli_parse("pbd-meshgen", "pbd-meshgen grid|icosphere|bag|beam --out=FILE [options]",
                       argc, argv, 1, opts, n_opts, positional, 1, &np);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    int kind = -1;
    for (int k = 0; np == 1 && kinds[k]; k++)
        if (strcmp(kinds[k], positional[0]) == 0) kind = k;
    if (kind < 0) {
        fprintf(stderr, "pbd-meshgen: KIND: expected one of grid icosphere bag beam, found '%s'\n",
                np ? positional[0] : "");
        return 2;
    }
    if (!out || !*out) {
        fprintf(stderr, "pbd-meshgen: --out: expected an output file, found nothing\n");
        return 2;
    }
    pbd_interrupt_install_cleanup(); /* SIGINT/SIGTERM: no FILE.partial-<pid> left behind */
    char comment[256];
    pbd_status st;
    if (kind == 3) {
        /* a cantilever of square section: length `size`, side size/4 */
        int side = resolution / 4 > 0 ? resolution / 4 : 1;
        pbd_tetmesh m;
        st = pbd_mesh_tet_beam(resolution, side, side, size, size / 4, size / 4, tets_per_cube,
                               &m);
        snprintf(comment, sizeof comment, "pbd-meshgen beam --resolution=%d --size=%g "
                 "--tets-per-cube=%d", resolution, size, tets_per_cube);
        if (st == PBD_OK) st = pbd_tetmesh_save_tetgen(&m, out, comment);
        pbd_tetmesh_free(&m);
    } else {
        pbd_trimesh m;
        if (kind == 0) {
            st = pbd_mesh_grid(resolution, resolution, size, size, diagonal, &m);
            snprintf(comment, sizeof comment, "pbd-meshgen grid --resolution=%d --size=%g "
                     "--diagonal=%s", resolution, size, pbd_diagonal_names[diagonal]);
        } else if (kind == 1) {
            st = pbd_mesh_icosphere(level, size / 2, &m);
            snprintf(comment, sizeof comment, "pbd-meshgen icosphere --level=%d --size=%g", level,
                     size);
        } else {
            st = pbd_mesh_cloth_bag(resolution, size, closed, diagonal, &m);
            snprintf(comment, sizeof comment, "pbd-meshgen bag --resolution=%d --size=%g "
                     "--diagonal=%s%s", resolution, size, pbd_diagonal_names[diagonal],
                     closed ? " --closed" : "");
        }
        if (st == PBD_OK) st = pbd_trimesh_save_obj(&m, out, comment);
        pbd_trimesh_free(&m);
    }
    if (st != PBD_OK) {
        fprintf(stderr, "pbd-meshgen: %s\n", pbd_last_error());
        return pbd_exit_status(st);
    }
    return 0;
}
