/* The tetrahedral beam: a box of nx × ny × nz cubes, each split into tetrahedra so that
 * neighbouring cubes share their face diagonals (a conforming mesh).
 *   6 per cube: the Kuhn split, every tet runs from corner 000 to corner 111 along the
 *               cube's edges (one tet per order of the axes); volume 1/6 each.
 *   5 per cube: the tet on the four corners of even parity (volume 1/3) and one tet cut
 *               off at each odd corner (1/6 each); neighbouring cubes use the mirror image
 *               (odd and even exchanged), chosen by the parity of i + j + k. */
#include "mesh_private.h"

#include <math.h>
#include <string.h>

/* Corner b of a cube: bit 0 along x, bit 1 along y, bit 2 along z. */
static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                               {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
static const int five_even[5][4] = {{0, 3, 5, 6}, {1, 0, 3, 5}, {2, 0, 3, 6},
                                    {4, 0, 5, 6}, {7, 3, 5, 6}};
static const int five_odd[5][4] = {{1, 2, 4, 7}, {0, 1, 2, 4}, {3, 1, 2, 7},
                                   {5, 1, 4, 7}, {6, 2, 4, 7}};

pbd_status pbd_mesh_tet_beam(int nx, int ny, int nz, double lx, double ly, double lz,
                             int tets_per_cube, pbd_tetmesh *out)
{
    memset(out, 0, sizeof *out);
    if (nx < 1 || ny < 1 || nz < 1 || (double)nx * ny * nz > 1e7)
        return pbd_error(PBD_EINVAL, "tet beam: expected >= 1 cube per side (at most 1e7 in all), "
                         "found %d x %d x %d", nx, ny, nz);
    if (!(lx > 0 && ly > 0 && lz > 0 && isfinite(lx) && isfinite(ly) && isfinite(lz)))
        return pbd_error(PBD_EINVAL, "tet beam: expected finite sides > 0, found %g x %g x %g", lx,
                         ly, lz);
    if (tets_per_cube != 5 && tets_per_cube != 6)
        return pbd_error(PBD_EINVAL, "tet beam: expected 5 or 6 tets per cube, found %d",
                         tets_per_cube);
    int X = nx + 1, Y = ny + 1, Z = nz + 1;
    pbd_status st = pbd_tetmesh_alloc(out, X * Y * Z, tets_per_cube * nx * ny * nz);
    if (st != PBD_OK) return st;
    const double h[3] = {lx / nx, ly / ny, lz / nz};
    for (int k = 0; k < Z; k++)
        for (int j = 0; j < Y; j++)
            for (int i = 0; i < X; i++) {
                double *x = out->x + 3 * (((size_t)k * Y + j) * X + i);
                x[0] = h[0] * i;
                x[1] = h[1] * j;
                x[2] = h[2] * k;
            }
    int32_t *t = out->tet;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int32_t c[8];
                for (int b = 0; b < 8; b++)
                    c[b] = ((k + (b >> 2 & 1)) * Y + (j + (b >> 1 & 1))) * X + i + (b & 1);
                const int(*split)[4] = tets_per_cube == 6 ? kuhn
                                       : (i + j + k) % 2 == 0 ? five_even
                                                              : five_odd;
                for (int s = 0; s < tets_per_cube; s++, t += 4)
                    for (int v = 0; v < 4; v++) t[v] = c[split[s][v]];
            }
    pbd_tetmesh_orient(out); /* every tet of positive volume */
    return PBD_OK;
}
