/* Spatial hash of points (Teschner et al. 2003, "Optimized Spatial Hashing for Collision
 * Detection of Deformable Objects"), as PBD Sec. 4.3 uses it for self collision: the cell
 * (i, j, k) = floor(x / s) goes to bucket (i·73856093 ⊕ j·19349663 ⊕ k·83492791) mod T.
 * Points are stored bucket by bucket (a counting sort), so building and querying allocate
 * nothing. A query visits the buckets of the cells its box covers (each bucket once) and
 * keeps the points that lie inside the box: the answer is exact, hash collisions only cost
 * time. A box that covers more cells than there are buckets scans all points instead. */
#include "pbd_collision.h"

#include <math.h>
#include <stdlib.h>

struct pbd_spatial_hash {
    int max_points, n;
    double cell, inv_cell;
    uint64_t table_mask;    /* T - 1, T a power of two >= 2 max_points */
    int32_t *bucket_start;  /* T + 1 */
    int32_t *bucket_stamp;  /* T: last query that visited the bucket */
    int32_t stamp;
    int32_t *ids;           /* n, bucket by bucket */
    double *pts;            /* 3 n, same order */
    uint64_t *key;          /* n scratch: bucket of each input point */
};

/* Cell coordinate of a value; clamped so that the conversion never overflows. */
static int64_t cell_of(double v, double inv_cell)
{
    double c = floor(v * inv_cell);
    if (!(c > -1e15)) c = -1e15; /* also catches NaN */
    if (c > 1e15) c = 1e15;
    return (int64_t)c;
}

static uint64_t bucket_of(const pbd_spatial_hash *h, int64_t i, int64_t j, int64_t k)
{
    uint64_t a = (uint64_t)i * 73856093u, b = (uint64_t)j * 19349663u, c = (uint64_t)k * 83492791u;
    return (a ^ b ^ c) & h->table_mask;
}

pbd_spatial_hash *pbd_spatial_hash_create(int max_points, double cell_size)
{
    if (max_points < 0) {
        pbd_error(PBD_EINVAL, "spatial hash: max_points must be >= 0, found %d", max_points);
        return NULL;
    }
    pbd_spatial_hash *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    uint64_t t = 16;
    while (t < 2 * (uint64_t)max_points) t *= 2;
    size_t m = max_points > 0 ? (size_t)max_points : 1;
    h->max_points = max_points;
    h->table_mask = t - 1;
    h->bucket_start = calloc(t + 1, sizeof *h->bucket_start);
    h->bucket_stamp = calloc(t, sizeof *h->bucket_stamp);
    h->ids = malloc(m * sizeof *h->ids);
    h->pts = malloc(3 * m * sizeof *h->pts);
    h->key = malloc(m * sizeof *h->key);
    if (!h->bucket_start || !h->bucket_stamp || !h->ids || !h->pts || !h->key ||
        pbd_spatial_hash_set_cell_size(h, cell_size) != PBD_OK) {
        pbd_spatial_hash_free(h);
        return NULL;
    }
    return h;
}

void pbd_spatial_hash_free(pbd_spatial_hash *h)
{
    if (!h) return;
    free(h->bucket_start);
    free(h->bucket_stamp);
    free(h->ids);
    free(h->pts);
    free(h->key);
    free(h);
}

pbd_status pbd_spatial_hash_set_cell_size(pbd_spatial_hash *h, double cell_size)
{
    if (!(isfinite(cell_size) && cell_size > 0.0))
        return pbd_error(PBD_EINVAL, "spatial hash: cell size must be finite and > 0, found %g",
                         cell_size);
    h->cell = cell_size;
    h->inv_cell = 1.0 / cell_size;
    return PBD_OK;
}

double pbd_spatial_hash_cell_size(const pbd_spatial_hash *h) { return h->cell; }

pbd_status pbd_spatial_hash_build(pbd_spatial_hash *h, const double *pts, const int32_t *ids,
                                  int n)
{
    if (n < 0 || n > h->max_points)
        return pbd_error(PBD_EINVAL, "spatial hash: expected at most %d points, found %d",
                         h->max_points, n);
    uint64_t T = h->table_mask + 1;
    for (uint64_t b = 0; b <= T; b++) h->bucket_start[b] = 0;
    for (int k = 0; k < n; k++) {
        const double *x = pts + 3 * (size_t)(ids ? ids[k] : k);
        uint64_t b = bucket_of(h, cell_of(x[0], h->inv_cell), cell_of(x[1], h->inv_cell),
                               cell_of(x[2], h->inv_cell));
        h->key[k] = b;
        h->bucket_start[b + 1]++;
    }
    for (uint64_t b = 0; b < T; b++) h->bucket_start[b + 1] += h->bucket_start[b];
    /* fill: bucket_start[b] is used as the cursor, then shifted back */
    for (int k = 0; k < n; k++) {
        int32_t id = ids ? ids[k] : k;
        int32_t slot = h->bucket_start[h->key[k]]++;
        h->ids[slot] = id;
        const double *x = pts + 3 * (size_t)id;
        h->pts[3 * slot] = x[0];
        h->pts[3 * slot + 1] = x[1];
        h->pts[3 * slot + 2] = x[2];
    }
    for (uint64_t b = T; b > 0; b--) h->bucket_start[b] = h->bucket_start[b - 1];
    h->bucket_start[0] = 0;
    h->n = n;
    return PBD_OK;
}

static int inside(const double *x, const double lo[3], const double hi[3])
{
    return x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] && x[2] >= lo[2] &&
           x[2] <= hi[2];
}

/* Keep the points of slots [a, b) that lie in the box. */
static int collect(const pbd_spatial_hash *h, int32_t a, int32_t b, const double lo[3],
                   const double hi[3], int32_t *out, int max_out, int count)
{
    for (int32_t s = a; s < b; s++)
        if (inside(h->pts + 3 * (size_t)s, lo, hi)) {
            if (count < max_out) out[count] = h->ids[s];
            count++;
        }
    return count;
}

int pbd_spatial_hash_query(pbd_spatial_hash *h, const double lo[3], const double hi[3],
                           int32_t *out, int max_out)
{
    int64_t c0[3], c1[3];
    double cells = 1.0;
    for (int d = 0; d < 3; d++) {
        if (!(lo[d] <= hi[d])) return 0; /* empty or NaN box */
        c0[d] = cell_of(lo[d], h->inv_cell);
        c1[d] = cell_of(hi[d], h->inv_cell);
        cells *= (double)(c1[d] - c0[d] + 1);
    }
    if (cells > (double)(h->table_mask + 1)) /* the box covers more cells than buckets */
        return collect(h, 0, h->n, lo, hi, out, max_out, 0);
    if (++h->stamp == INT32_MAX) { /* wrap: forget all visits */
        for (uint64_t b = 0; b <= h->table_mask; b++) h->bucket_stamp[b] = 0;
        h->stamp = 1;
    }
    int count = 0;
    for (int64_t i = c0[0]; i <= c1[0]; i++)
        for (int64_t j = c0[1]; j <= c1[1]; j++)
            for (int64_t k = c0[2]; k <= c1[2]; k++) {
                uint64_t b = bucket_of(h, i, j, k);
                if (h->bucket_stamp[b] == h->stamp) continue; /* each bucket once */
                h->bucket_stamp[b] = h->stamp;
                count = collect(h, h->bucket_start[b], h->bucket_start[b + 1], lo, hi, out,
                                max_out, count);
            }
    return count;
}

double pbd_mean_edge_length(const double *x, const int32_t *tris, int n_tris)
{
    if (n_tris <= 0) return 0.0;
    double sum = 0.0;
    for (int t = 0; t < n_tris; t++)
        for (int e = 0; e < 3; e++) {
            const double *a = x + 3 * (size_t)tris[3 * t + e];
            const double *b = x + 3 * (size_t)tris[3 * t + (e + 1) % 3];
            double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
            sum += sqrt(d0 * d0 + d1 * d1 + d2 * d2);
        }
    return sum / (3.0 * n_tris);
}
