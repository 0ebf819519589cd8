/* What the world has allocated, in bytes (the bench's memory per particle). Counts the
 * capacities, not the counts: a set grown by doubling holds up to twice what it uses
 * until pbd_world_compact() or a sort by colour trims it. The collision state (solver/
 * collision*.c) is not counted. Also the memory available (pbd_memory_limit) and the
 * estimate of a run's peak before its world is built (pbd_memory_estimate_run). */
#include "pbd.h"
#include "variants.h"
#include "solver/method.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

size_t pbd_world_bytes(const pbd_world *w)
{
    size_t d = sizeof(double), i4 = sizeof(int32_t), n = w->n > 0 ? (size_t)w->n : 1;
    size_t bytes = sizeof *w + n * (3 * 3 * d + d); /* x, p, v, w */
    bytes += (size_t)w->n_sets * sizeof *w->sets;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        size_t cap = (size_t)set->capacity;
        size_t nr = set->type->n_rest > 0 ? (size_t)set->type->n_rest : 1;
        bytes += cap * ((size_t)set->arity * i4 + nr * d + 4 * d); /* idx, rest, k, α, λ, k_eff */
        if (set->origin) bytes += cap * i4;
        if (set->aux) bytes += (size_t)(set->n_aux > 0 ? set->n_aux : 1) * i4;
    }
    bytes += (size_t)w->n_attach * (i4 + 6 * d);
    if (w->particle_origin) bytes += n * i4;
    bytes += (size_t)w->max_arity * 10 * d; /* work_x, work_x0, work_grad, work_w */
    bytes += (size_t)w->iter_capacity * 4 * d; /* max_c, l2_c, xpbd, newton */
    if (w->iter_sets) bytes += (size_t)w->iter_capacity * (w->iter_sets_n > 0 ? (size_t)w->iter_sets_n : 1) * 3 * d;
    const struct pbd_variants_state *vs = w->variants;
    if (vs) {
        bytes += sizeof *vs + (size_t)vs->n_col_sets * sizeof *vs->col;
        for (int s = 0; s < vs->n_col_sets; s++)
            bytes += (size_t)(vs->col[s].order_cap + vs->col[s].start_cap) * i4;
        bytes += (size_t)(vs->stamp_cap + vs->pending_cap) * i4;
        bytes += (size_t)vs->n_ws * (sizeof *vs->ws + (size_t)vs->ws_arity * 10 * d);
        bytes += (size_t)vs->jac_n_cap * (3 * d + i4) + (size_t)vs->jac_m_cap * d +
                 (size_t)vs->jac_delta_cap * d + (size_t)vs->jac_sets_cap * 2 * i4;
    }
    return bytes;
}

/* The limit's variables, newest name first. */
static const char *const limit_names[] = {"PBD_MEMORY_LIMIT", "PBD_NEWTON_MEMORY_LIMIT"};

pbd_status pbd_memory_limit(size_t *limit, const char **source)
{
    *limit = SIZE_MAX;
    *source = "no limit known";
    for (int k = 0; k < 2; k++) {
        const char *env = getenv(limit_names[k]);
        if (!env || !*env) continue;
        char *end;
        double v = strtod(env, &end);
        double unit = *end == 'k' || *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0
                    : *end == 'G' ? 1073741824.0 : 1.0;
        if (unit > 1.0) end++;
        if (end == env || *end != '\0' || !(v >= 0.0) || v * unit >= 1.8e19)
            return pbd_error(PBD_EINVAL, "%s: expected a number of bytes with an optional k, M "
                             "or G suffix, found '%s'", limit_names[k], env);
        *limit = (size_t)(v * unit);
        *source = limit_names[k];
        return PBD_OK;
    }
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *limit = (size_t)kb * 1024;
            *source = "MemAvailable in /proc/meminfo";
            break;
        }
    if (f) fclose(f);
    return PBD_OK;
}

/* Entries of the Cholesky factor of a matrix with the sparsity of an n-vertex mesh under a
 * nested-dissection ordering: at most 10 n log2 n for a 2-D mesh (George: 31/4 n log2 n on
 * a grid; measured 6.7 n log2 n for CHOLMOD on the 316² cloth), 10 n^(4/3) for a 3-D one;
 * never more than the dense n(n+1)/2. An estimate, not a bound CHOLMOD guarantees. */
static const char *const fill_nd2 =
    "fill bound 10 n log2 n of nested dissection on a 2-D mesh, an estimate";
static const char *const fill_nd3 =
    "fill bound 10 n^(4/3) of nested dissection on a 3-D mesh, an estimate";

static double factor_entries(double n, int dim)
{
    double e = dim == 3 ? 10.0 * pow(n, 4.0 / 3.0) : 10.0 * n * log2(n + 2.0);
    double dense = n * (n + 1.0) / 2.0;
    return (e < dense ? e : dense) + 8.0 * n; /* supernodes' padding */
}

/* the families' workspace: five vectors of 3n, k, λ, C0 per row, the adjacency (set,
 * constraint, slot per index), the colouring */
double pbd_memory_family(const pbd_memory_shape *s, const char **fill)
{
    const double d = sizeof(double), i4 = sizeof(int32_t), n = s->n;
    (void)fill;
    return n * (15 * d + 6 * i4) + s->scalars * 3 * d + s->indices * 3 * i4;
}

/* PD: the families' workspace and M/h² + Σ w SᵀAᵀAS on the n particles (one scalar matrix
 * for x, y, z): the triplets (3 rows per pair at most), the compressed matrix, and the
 * supernodal factor with its row indices and CHOLMOD's workspace; targets and right-hand
 * sides; the gathered path's (solver/pd/pd_gather.c) factor by rows, two terms per row of
 * the right side (a spring's), its two 4 × n vectors and row maps */
double pbd_memory_pd(const pbd_memory_shape *s, const char **fill)
{
    const double d = sizeof(double), i4 = sizeof(int32_t), n = s->n;
    double bytes = pbd_memory_family(s, fill);
    double L = factor_entries(n, s->dim);
    bytes += (n + 3 * s->pairs) * (2 * i4 + d) + 3 * s->pairs * (i4 + d) +
             L * (d + i4) * 1.5 + n * 64 + s->rows * 9 * d + 3 * n * d;
    bytes += L * (d + i4) + s->rows * 2 * (d + 2 * i4) + n * (8 * d + 4 * i4);
    *fill = s->dim == 3 ? fill_nd3 : fill_nd2;
    return bytes;
}

/* the Schur matrix on 3n unknowns: 3×3 blocks of the scalar pattern (entries, row indices,
 * the permuted transpose the factorisation makes, the assembly maps); its factor as
 * newton_linear_analyze counts it (two kept supernodal factors, their float copy, indices:
 * ~28 bytes an entry, and a tenth more); the Jacobian and vectors */
double pbd_memory_newton(const pbd_memory_shape *s, const char **fill)
{
    const double d = sizeof(double), i4 = sizeof(int32_t), n = s->n;
    double L = 9.0 * factor_entries(n, s->dim);
    *fill = s->dim == 3 ? fill_nd3 : fill_nd2;
    return 9.0 * (n + s->pairs) * (3 * d + 3 * i4) + L * 28.0 * 1.1 +
           s->scalars * 3 * (3 * d + i4) * 4 + 3 * n * d * 40;
}

pbd_memory_estimate pbd_memory_estimate_run(const pbd_memory_shape *s, int method,
                                            int reference, int out, int frame_velocities)
{
    pbd_memory_estimate e = {0};
    const double d = sizeof(double), i4 = sizeof(int32_t), n = s->n;
    const pbd_method_ops *m = pbd_method_at(method);
    e.fill = "";
    /* particles (x, p, v, w and their origin), the sets at their capacity (grown by
     * doubling: twice the counts), colouring, stamps, Jacobi's sums, per-set statistics */
    e.world = n * (10 * d + i4) + 2 * (s->indices * i4 + s->rest * d + s->rows * 4 * d) +
              s->rows * (2 * i4) + n * (4 * d + 2 * i4);
    /* the mesh, its edge and hinge lists and the kept cells while the scene is built */
    e.build = n * (3 * d + 4 * i4) + s->cells * 2 * i4 + s->indices * 2 * i4;
    if (m->memory) e.method = m->memory(s, &e.fill);
    if (reference && !m->reference) /* the reference's workspace beside the method's */
        e.reference = pbd_memory_newton(s, &e.fill) + 3 * n * d + s->scalars * 2 * d;
    if (out) /* a frame's positions (velocities), λ and the /scene cells, staged twice */
        e.output = 2 * ((frame_velocities ? 6 : 3) * n * d + s->scalars * d + s->cells * i4 +
                        n * 3 * d) + 8.0 * 1048576.0;
    e.fixed = 16.0 * 1048576.0; /* threads' stacks, the libraries' first buffers */
    e.total = e.world + e.build + e.method + e.reference + e.output + e.fixed;
    return e;
}
