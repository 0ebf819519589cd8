/* The fluid's neighbour search, once per (sub)step after predict (PBF Algorithm 1, lines
 * 5–7: find neighbouring particles N_i(x*_i)): a cell list. The container box, grown by 2h on
 * every side, is cut into cells of edge h; the particles are counting-sorted by cell (cells
 * in x-fastest order, particles in index order within a cell), and particle i's neighbours
 * are those of the 27 cells around its own with |x_i − x_j| < h. A particle outside the grid
 * counts in the nearest border cell: clamping keeps cells of particles closer than h at most
 * one apart, so the answer stays exact (only slower for stray particles).
 *
 * Why not solver/collision's spatial hash: its query marks buckets in a shared stamp array,
 * so queries cannot run in parallel; the fluid lives in a known box, where a dense grid
 * needs no hashing. Rows are written in parallel, each by its own particle: the result does
 * not depend on the threads. */
#include "fluid_private.h"

#include <math.h>
#include <omp.h>

static int clampi(int v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

static void cell_coords(const struct pbd_fluid_state *fs, const double *x, int c[3])
{
    for (int k = 0; k < 3; k++) {
        double f = floor((x[k] - fs->origin[k]) / fs->def.h);
        c[k] = !(f > 0.0) ? 0 : f >= fs->dims[k] - 1 ? fs->dims[k] - 1 : (int)f;
    }
}

void fluid_neighbours(pbd_world *w, struct pbd_fluid_state *fs)
{
    const double *p = w->p;
    const int n = fs->count, first = fs->first, nx = fs->dims[0], ny = fs->dims[1];
    const double h2 = fs->def.h * fs->def.h;
    /* counting sort by cell */
    for (long c = 0; c <= fs->n_cells; c++) fs->cell_start[c] = 0;
    for (int k = 0; k < n; k++) {
        int c[3];
        cell_coords(fs, p + 3 * (size_t)(first + k), c);
        fs->cell_of[k] = (int32_t)(c[0] + (long)nx * (c[1] + (long)ny * c[2]));
        fs->cell_start[fs->cell_of[k] + 1]++;
    }
    for (long c = 0; c < fs->n_cells; c++) fs->cell_start[c + 1] += fs->cell_start[c];
    for (int k = 0; k < n; k++) fs->sorted[fs->cell_start[fs->cell_of[k]]++] = k;
    for (long c = fs->n_cells; c > 0; c--) fs->cell_start[c] = fs->cell_start[c - 1];
    fs->cell_start[0] = 0;

    pbd_constraint_set *set = &w->sets[fs->set];
    const int A = fs->arity;
    long total = 0, dropped = 0;
    int most = 0;
#pragma omp parallel for num_threads(fs->threads) if (fs->threads > 1) schedule(static) \
    reduction(+ : total, dropped) reduction(max : most)
    for (int k = 0; k < n; k++) {
        const double *xi = p + 3 * (size_t)(first + k);
        int32_t *row = set->idx + (size_t)k * A;
        int cnt = 1, found = 0;
        row[0] = first + k;
        int c[3];
        cell_coords(fs, xi, c);
        for (int dz = -1; dz <= 1; dz++) {
            int cz = c[2] + dz;
            if (cz != clampi(cz, fs->dims[2] - 1)) continue;
            for (int dy = -1; dy <= 1; dy++) {
                int cy = c[1] + dy;
                if (cy != clampi(cy, ny - 1)) continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int cx = c[0] + dx;
                    if (cx != clampi(cx, nx - 1)) continue;
                    long cell = cx + (long)nx * (cy + (long)ny * cz);
                    for (int q = fs->cell_start[cell]; q < fs->cell_start[cell + 1]; q++) {
                        int j = fs->sorted[q];
                        if (j == k) continue;
                        const double *xj = p + 3 * (size_t)(first + j);
                        double d0 = xi[0] - xj[0], d1 = xi[1] - xj[1], d2 = xi[2] - xj[2];
                        if (d0 * d0 + d1 * d1 + d2 * d2 >= h2) continue;
                        found++;
                        if (cnt < A) row[cnt++] = first + j;
                    }
                }
            }
        }
        for (int q = cnt; q < A; q++) row[q] = first + k; /* padding: never read (count) */
        set->rest[(size_t)k * PBD_FLUID_N_REST + 4] = cnt;
        set->rest[(size_t)k * PBD_FLUID_N_REST + 5] = fluid_wall(fs, xi, NULL);
        total += found;
        dropped += found - (cnt - 1);
        if (found > most) most = found;
    }
    fs->stats.neighbours_mean = n > 0 ? (double)total / n : 0.0;
    fs->stats.neighbours_max = most;
    fs->stats.dropped = dropped;
}
