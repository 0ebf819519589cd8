/* Isometric bending (Bergou et al. 2006; suite `bending_isometric`): its properties, a
 * bent patch that flattens, both bending types through the world and under repeated
 * projection, and the limitation of the dihedral angle (PBD Sec. 4.1) on folded hinges that
 * the isometric model does not share (constraints/README.md "Bending constraints"). */
#include "tests.h"
#include "bending_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* (g) Isometric bending: C = 0 and ∇C = 0 at a flat rest state; invariance under rigid
 * motion; a bent cloth patch projected with it flattens. */
static void test_isometric_properties(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 99);
    for (int n = 0; n < 200; n++) {
        double x[12], rest[16], g[12];
        int32_t aux[1];
        int n_aux, st;
        /* a flat rest hinge: take a sample's rest positions' plane by rebuilding flat */
        pbd_bend_dihedral_type.sample(&r, 0, x, rest, aux, &n_aux);
        /* flatten x: rotate p4 about the edge onto the far side of p3's half-plane */
        double e[3], a[3], b[3], en = 0.0;
        for (int c = 0; c < 3; c++) e[c] = x[3 + c] - x[c], en += e[c] * e[c];
        en = sqrt(en);
        for (int c = 0; c < 3; c++) e[c] /= en;
        double ae = 0, be = 0;
        for (int c = 0; c < 3; c++) ae += (x[6 + c] - x[c]) * e[c], be += (x[9 + c] - x[c]) * e[c];
        for (int c = 0; c < 3; c++) a[c] = x[6 + c] - x[c] - ae * e[c];
        for (int c = 0; c < 3; c++) b[c] = x[9 + c] - x[c] - be * e[c];
        double an = norm(a, 3), bn = norm(b, 3);
        for (int c = 0; c < 3; c++) x[9 + c] = x[c] + be * e[c] - bn / an * a[c];
        compute_rest(&pbd_bend_isometric_type, x, rest);
        double C = eval_c(&pbd_bend_isometric_type, x, rest, g, &st);
        CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
        double qscale = fabs(rest[0]) + fabs(rest[4]) + fabs(rest[7]) + fabs(rest[9]);
        CU_ASSERT(fabs(C) <= 1e-13 * qscale * (1 + norm(x, 12) * norm(x, 12)));
        CU_ASSERT(norm(g, 12) <= 1e-13 * qscale * (1 + norm(x, 12)));
        /* rigid motion of a bent configuration leaves C unchanged */
        double y[12], z[12], R[9], axis[3], tr[3];
        pbd_bend_isometric_type.sample(&r, 0, y, rest, aux, &n_aux);
        for (int c = 0; c < 3; c++) axis[c] = pbd_rng_gaussian(&r), tr[c] = 3 * pbd_rng_gaussian(&r);
        double an2 = norm(axis, 3);
        for (int c = 0; c < 3; c++) axis[c] /= an2;
        rotation(axis, pbd_rng_range(&r, -M_PI, M_PI), R);
        rigid_motion(R, tr, y, z);
        double Cy = eval_c(&pbd_bend_isometric_type, y, rest, NULL, NULL);
        double Cz = eval_c(&pbd_bend_isometric_type, z, rest, NULL, NULL);
        CU_ASSERT(fabs(Cy - Cz) <= 1e-11 * (fabs(Cy) + rest[10] + qscale));
        /* and the dihedral angle's too */
        double phi0 = 1.0;
        double Dy = eval_c(&pbd_bend_dihedral_type, y, &phi0, NULL, NULL);
        double Dz = eval_c(&pbd_bend_dihedral_type, z, &phi0, NULL, NULL);
        CU_ASSERT_DOUBLE_EQUAL(Dy, Dz, 1e-12);
    }
}

/* A flat 5×5 cloth patch in the xy-plane (spacing 0.1), with one hinge per interior edge. */
#define PATCH_N 5
static int patch_hinges(int32_t (*h)[4])
{
    int count = 0;
#define V(i, j) ((i) * PATCH_N + (j))
    /* each cell (i, j) is split along its diagonal V(i,j)–V(i+1,j+1) */
    for (int i = 0; i + 1 < PATCH_N; i++)
        for (int j = 0; j + 1 < PATCH_N; j++) {
            /* the diagonal: triangles (V(i,j), V(i+1,j+1), V(i+1,j)) and (…, V(i,j+1)) */
            int32_t d[4] = {V(i, j), V(i + 1, j + 1), V(i + 1, j), V(i, j + 1)};
            memcpy(h[count++], d, sizeof d);
            /* the horizontal edge V(i,j+1)–V(i+1,j+1) shared with cell (i, j+1) */
            if (j + 2 < PATCH_N) {
                int32_t e[4] = {V(i, j + 1), V(i + 1, j + 1), V(i, j), V(i + 1, j + 2)};
                memcpy(h[count++], e, sizeof e);
            }
            /* the vertical edge V(i+1,j)–V(i+1,j+1) shared with cell (i+1, j) */
            if (i + 2 < PATCH_N) {
                int32_t f[4] = {V(i + 1, j), V(i + 1, j + 1), V(i, j), V(i + 2, j + 1)};
                memcpy(h[count++], f, sizeof f);
            }
        }
#undef V
    return count;
}

static void gather4(const double *pos, const int32_t *idx, double *x)
{
    for (int j = 0; j < 4; j++) memcpy(x + 3 * j, pos + 3 * idx[j], 3 * sizeof(double));
}

static double patch_max_bend(const double *pos, const int32_t (*h)[4], int nh)
{
    double mx = 0.0, phi0 = M_PI, x[12];
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        double C = eval_c(&pbd_bend_dihedral_type, x, &phi0, NULL, NULL);
        if (fabs(C) > mx) mx = fabs(C);
    }
    return mx;
}

static void test_isometric_patch_flattens(void)
{
    int32_t h[3 * PATCH_N * PATCH_N][4];
    int nh = patch_hinges(h);
    double pos[3 * PATCH_N * PATCH_N], rest[3 * PATCH_N * PATCH_N][11], x[12], g[12];
    for (int i = 0; i < PATCH_N; i++)
        for (int j = 0; j < PATCH_N; j++) {
            double *p = pos + 3 * (i * PATCH_N + j);
            p[0] = 0.1 * i, p[1] = 0.1 * j, p[2] = 0.0;
        }
    CU_ASSERT_DOUBLE_EQUAL(patch_max_bend(pos, h, nh), 0.0, 1e-12);
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        compute_rest(&pbd_bend_isometric_type, x, rest[c]);
    }
    /* bend it onto a cylinder of radius 0.25 around an axis parallel to y (isometric) */
    for (int v = 0; v < PATCH_N * PATCH_N; v++) {
        double *p = pos + 3 * v, s = p[0] - 0.2, R = 0.25;
        p[0] = 0.2 + R * sin(s / R);
        p[2] = R * (1 - cos(s / R));
    }
    double bend0 = patch_max_bend(pos, h, nh);
    CU_ASSERT(bend0 > 0.3);
    double w[4] = {1, 1, 1, 1};
    double energy0 = 0.0, energy = 0.0;
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        energy0 += eval_c(&pbd_bend_isometric_type, x, rest[c], NULL, NULL);
    }
    for (int it = 0; it < 200; it++)
        for (int c = 0; c < nh; c++) {
            gather4(pos, h[c], x);
            pbd_eval_input in = {x, 4, rest[c], NULL, 0};
            if (pbd_project_generic(&pbd_bend_isometric_type, &in, w, 1.0, x, g) == PBD_EVAL_OK)
                for (int j = 0; j < 4; j++) memcpy(pos + 3 * h[c][j], x + 3 * j, 3 * sizeof(double));
        }
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        energy += eval_c(&pbd_bend_isometric_type, x, rest[c], NULL, NULL);
    }
    double bend = patch_max_bend(pos, h, nh);
    CU_ASSERT(test_all_finite(pos, 3 * PATCH_N * PATCH_N));
    CU_ASSERT(bend < 0.1 * bend0);
    CU_ASSERT(energy < 1e-2 * energy0);
    printf("\n    patch: max |pi - phi| %.3f -> %.2e, total bending energy %.3e -> %.2e ", bend0,
           bend, energy0, energy);
}

/* Through the world: rest values from the positions (pbd_set_add with rest = NULL), then a
 * step without gravity on a bent hinge brings it towards its rest angle; an exactly flat
 * hinge at rest is skipped (dihedral: the kink) or left alone (isometric: C = ∇C = 0). */
static void test_through_world_step(void)
{
    const double flat[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.9, 0};
    const double bent[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.5, 0.6};
    for (int ti = 0; ti < 2; ti++) {
        for (int moved = 0; moved < 2; moved++) {
            pbd_world *w = pbd_world_create(4);
            for (int i = 0; i < 4; i++) pbd_world_set_particle(w, i, flat + 3 * i, NULL, 1.0 + i);
            w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
            w->def.iterations = 10;
            int s = pbd_world_add_set(w, bending_types[ti], 0);
            int32_t idx[4] = {0, 1, 2, 3};
            CU_ASSERT_EQUAL_FATAL(pbd_set_add(w, s, idx, NULL, 1.0, 0.0), 0);
            if (moved) memcpy(w->x, bent, sizeof bent);
            double before = fabs(eval_c(bending_types[ti], w->x, w->sets[s].rest, NULL, NULL));
            CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
            double after = fabs(eval_c(bending_types[ti], w->x, w->sets[s].rest, NULL, NULL));
            CU_ASSERT(test_all_finite(w->x, 12));
            if (moved) {
                CU_ASSERT(before > 0.1);
                CU_ASSERT(after < 1e-3 * before);
            } else {
                CU_ASSERT(memcmp(w->x, flat, sizeof flat) == 0);
            }
            pbd_world_free(w);
        }
    }
}

/* (h) A few generic projections (k = 1) shrink |C| of bent hinges, for both types. */
static void test_projection_reduces_c(void)
{
    for (int ti = 0; ti < 2; ti++) {
        const pbd_constraint_type *t = bending_types[ti];
        pbd_rng r;
        pbd_rng_seed(&r, 321 + ti);
        int reduced = 0, N = 500;
        double worst = 0.0;
        for (int n = 0; n < N; n++) {
            double x[12], rest[16], g[12], w[4];
            int32_t aux[1];
            int n_aux;
            t->sample(&r, 0, x, rest, aux, &n_aux);
            for (int j = 0; j < 4; j++) w[j] = pow(10.0, pbd_rng_range(&r, -1, 1));
            double C0 = fabs(eval_c(t, x, rest, NULL, NULL)), C1 = C0;
            if (C0 < 1e-3) continue;
            for (int it = 0; it < 5; it++) {
                pbd_eval_input in = {x, 4, rest, NULL, 0};
                if (pbd_project_generic(t, &in, w, 1.0, x, g) != PBD_EVAL_OK) break;
            }
            C1 = fabs(eval_c(t, x, rest, NULL, NULL));
            CU_ASSERT(C1 < C0);
            if (C1 < 1e-3 * C0) reduced++;
            if (C1 / C0 > worst) worst = C1 / C0;
        }
        printf("\n    %s: after 5 projections |C|/|C0| <= %.2e, %d hinges below 1e-3 ", t->name,
               worst, reduced);
        CU_ASSERT(reduced > N / 2);
    }
}

/* ---- Limitation: folded hinges (constraints/README.md "Bending constraints") ---------- */

/* (i) The trigger. A flat hinge (rest φ0 = π) whose wing p4 crosses the edge's line inside
 * the plane (a sliver inverting, a stretch event) reads as a hinge folded flat: C jumps from
 * about 0 to about -π for a displacement of 2e-3 |e|. Isometric bending (E quadratic in x)
 * changes only by O(displacement) there; its value is large on both sides, since p4 moved
 * far from its rest place within the plane and the model takes the cloth as inextensible.
 * (A 1e-6 rad tilt out of the plane keeps both states off the kinks at d = ±1.) */
static void test_inplane_flip_reads_as_fold(void)
{
    const double rest_x[12] = {0, 0, 0, 1, 0, 0, 0.4, 0.9, 0, 0.5, -0.7, 0};
    double rest_d, rest_i[16];
    compute_rest(&pbd_bend_dihedral_type, rest_x, &rest_d);
    compute_rest(&pbd_bend_isometric_type, rest_x, rest_i);
    CU_ASSERT_DOUBLE_EQUAL(rest_d, M_PI, 1e-15);
    double C_d[2], C_i[2];
    for (int side = 0; side < 2; side++) {
        double x[12], h = side ? -1e-3 : 1e-3; /* p4's height over the edge's line, signed */
        memcpy(x, rest_x, sizeof x);
        x[10] = -h * cos(1e-6); /* p4 = (0.5, -h, h·1e-6): the apex on either side of p1–p2 */
        x[11] = fabs(h) * sin(1e-6);
        int st_d, st_i;
        C_d[side] = eval_c(&pbd_bend_dihedral_type, x, &rest_d, NULL, &st_d);
        C_i[side] = eval_c(&pbd_bend_isometric_type, x, rest_i, NULL, &st_i);
        CU_ASSERT_EQUAL(st_d, PBD_EVAL_OK);
        CU_ASSERT_EQUAL(st_i, PBD_EVAL_OK);
    }
    CU_ASSERT(fabs(C_d[0]) < 1e-5);          /* still (almost) flat: φ ≈ π */
    CU_ASSERT(fabs(C_d[1] + M_PI) < 1e-5);   /* flipped: φ ≈ 0, "folded" */
    CU_ASSERT(fabs(C_i[1] - C_i[0]) < 1e-2 * C_i[0]); /* continuous: 1.870 -> 1.880 */
    printf("\n    p4 crossing the edge's line in-plane (2e-3 |e|): dihedral C %.2e -> %.4f, "
           "isometric C %.3e -> %.3e ", C_d[0], C_d[1], C_i[0], C_i[1]);
}

/* (j) The smallest case of the divergence in stretch_bend_independence (dihedral, k_stretch
 * 1/100, k_bend 1, 10 iterations, Δt = 1/60 s, 8×8 bag of 0.5 m and 1 kg): the bag's state
 * after 54 steps (t = 0.9 s), cut down to bag vertex 329 (free, local 5) and its six
 * neighbours 235, 237, 321, 322, 328, 336 (fixed at their predicted positions; the bottom
 * face has collapsed to a strip, they lie nearly on a line). Vertex 329 is predicted
 * through that line (x + Δt v + Δt² g), which folds hinges 2 (and, after one projection, 1)
 * to C ≈ -3: every sweep of the six dihedral projections then moves it about 100 times
 * farther, two hinges staying folded — PBD's step is |C| / |∇C| and |∇C| falls as 1/distance.
 * Eq. 28 does exactly the same. Isometric bending with the bag's (flat) rest state, on the
 * same fan, settles 0.033 m from the ring. This documents a limitation of the formulation (no
 * bug): a remedy built into bend_dihedral must change this test and constraints/README.md. */
static const double fan_x[7][3] = {
    {0.17860548428074507, -3.9864976115132387, 0.22848536514310636},
    {0.20809789516982291, -3.9945653539984289, 0.22924616688476609},
    {0.12282076100989825, -3.9699351080160201, 0.12392173611678124},
    {0.14463222577122156, -3.9763987286713012, 0.1611641512721094},
    {0.14585710028051918, -3.9768697423002948, 0.15382599762720861},
    {0.16811639356442176, -3.8970472680324515, 0.17540636786305394},
    {0.19460501004152619, -3.9899496450613339, 0.20006033461323072}};
static const double fan_v5[3] = {0.35444543615991642, -5.055407338497595, 0.12830283683343602};
static const double fan_rest[7][3] = {{0.125, -0.5, 0.25},    {0.1875, -0.5, 0.25},
                                      {0.0625, -0.5, 0.125},  {0.0625, -0.5, 0.1875},
                                      {0.125, -0.5, 0.125},   {0.125, -0.5, 0.1875},
                                      {0.1875, -0.5, 0.1875}};
static const int32_t fan_hinges[6][4] = {{5, 0, 3, 1}, {1, 5, 6, 0}, {5, 2, 4, 3},
                                         {5, 3, 2, 0}, {4, 5, 2, 6}, {6, 5, 4, 1}};

/* Gauss–Seidel sweeps of the fan's six hinges (generic path, or Eq. 28 when closed != 0),
 * k = 1; dist[s] = |p5 - p4| after sweep s, C_seen[s][h] = hinge h's C as it is projected. */
static void fan_sweeps(const pbd_constraint_type *t, int closed, int n_sweeps, double *dist,
                       double (*C_seen)[6], double p[7][3])
{
    const double dt = 1.0 / 60.0, w[7] = {0, 0, 0, 0, 0, 337.0, 0}; /* m = 1 kg / 337 */
    double rest[6][16];
    memcpy(p, fan_x, sizeof fan_x);
    for (int c = 0; c < 3; c++) p[5][c] += dt * fan_v5[c] + (c == 1 ? -9.81 * dt * dt : 0.0);
    for (int h = 0; h < 6; h++) {
        double x[12];
        for (int j = 0; j < 4; j++)
            memcpy(x + 3 * j, fan_rest[fan_hinges[h][j]], sizeof fan_rest[0]);
        compute_rest(t, x, rest[h]);
    }
    for (int s = 0; s < n_sweeps; s++) {
        for (int h = 0; h < 6; h++) {
            double x[12], g[12], wj[4];
            for (int j = 0; j < 4; j++) {
                memcpy(x + 3 * j, p[fan_hinges[h][j]], sizeof p[0]);
                wj[j] = w[fan_hinges[h][j]];
            }
            pbd_eval_input in = {x, 4, rest[h], NULL, 0};
            C_seen[s][h] = eval_c(t, x, rest[h], NULL, NULL);
            if (closed) t->project_closed_form(&in, wj, 1.0, x);
            else pbd_project_generic(t, &in, wj, 1.0, x, g);
            for (int j = 0; j < 4; j++) /* only the free vertex moves */
                if (wj[j] > 0.0) memcpy(p[fan_hinges[h][j]], x + 3 * j, sizeof p[0]);
        }
        double d[3] = {p[5][0] - p[4][0], p[5][1] - p[4][1], p[5][2] - p[4][2]};
        dist[s] = norm(d, 3);
    }
}

static void test_folded_fan_runs_away(void)
{
    enum { SWEEPS = 4 };
    double dist[3][SWEEPS], C[3][SWEEPS][6], p[3][7][3];
    fan_sweeps(&pbd_bend_dihedral_type, 0, SWEEPS, dist[0], C[0], p[0]);
    fan_sweeps(&pbd_bend_dihedral_type, 1, SWEEPS, dist[1], C[1], p[1]);
    double ring[3];
    for (int c = 0; c < 3; c++) ring[c] = fan_x[1][c] - fan_x[2][c];
    double size = norm(ring, 3); /* 0.14 m */
    CU_ASSERT(C[0][0][2] < -3.0);  /* the predicted position folds hinge 2 */
    for (int s = 1; s < SWEEPS; s++) {
        CU_ASSERT(dist[0][s] > 30.0 * dist[0][s - 1]);           /* geometric growth */
        CU_ASSERT(C[0][s][1] < -3.0 && C[0][s][2] < -3.0);       /* and no progress */
    }
    CU_ASSERT(dist[0][SWEEPS - 1] > 1e5 * size);
    /* Eq. 28 is the same step: equal to rounding after one sweep; the runaway amplifies the
     * rounding differences about as much as the positions (1e-13, 1e-11, 1e-9, 1e-7) */
    double worst_cf = 0.0;
    for (int s = 0; s < SWEEPS; s++)
        worst_cf = fmax(worst_cf, fabs(dist[1][s] - dist[0][s]) / dist[0][s]);
    CU_ASSERT(fabs(dist[1][0] - dist[0][0]) <= 1e-11 * dist[0][0]);
    CU_ASSERT(worst_cf <= 1e-6);
    /* isometric bending, same fan, same bag rest state: bounded, after ten sweeps */
    double dist_i[10], C_i[10][6];
    fan_sweeps(&pbd_bend_isometric_type, 0, 10, dist_i, C_i, p[2]);
    CU_ASSERT(test_all_finite(&p[2][0][0], 21));
    CU_ASSERT(dist_i[9] < size);
    printf("\n    fan cut from the bag: dihedral |p - p_ring| after sweeps 1-%d:", SWEEPS);
    for (int s = 0; s < SWEEPS; s++) printf(" %.3g", dist[0][s]);
    printf(" m (ring %.2f m), folded hinges C %.2f %.2f; Eq. 28 the same to %.0e; "
           "isometric %.3g m ",
           size, C[0][SWEEPS - 1][1], C[0][SWEEPS - 1][2], worst_cf, dist_i[9]);
}

/* (k) Why isometric bending stays bounded: C = E - E0 with E = ½ c |u|², u = Σ_i K_i x_i,
 * is quadratic, and for a flat rest state (E0 = 0) one PBD projection (k = 1) halves u
 * whatever the configuration and the masses: u' = u - Σ_i K_i (½ w_i K_i u / Σ_j w_j K_j²) =
 * u/2, so C' = C/4 — also for folded and in-plane flipped hinges, where the dihedral
 * angle's step can fail to reduce C at all (test folded_fan_runs_away). */
static void test_isometric_projection_quarters_energy(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 2006);
    double worst = 0.0;
    int n_folded = 0;
    for (int n = 0; n < 1000; n++) {
        double L = pow(10.0, pbd_rng_range(&r, -2, 1));
        double rest_x[12] = {0, 0, 0, L, 0, 0, 0, 0, 0, 0, 0, 0};
        rest_x[6] = L * pbd_rng_range(&r, -0.3, 1.3), rest_x[7] = L * pbd_rng_range(&r, 0.2, 1.5);
        rest_x[9] = L * pbd_rng_range(&r, -0.3, 1.3), rest_x[10] = -L * pbd_rng_range(&r, 0.2, 1.5);
        double rest[16], x[12], g[12], w[4];
        compute_rest(&pbd_bend_isometric_type, rest_x, rest);
        for (int i = 0; i < 12; i++) x[i] = rest_x[i] + 0.7 * L * pbd_rng_gaussian(&r);
        for (int j = 0; j < 4; j++)
            w[j] = pbd_rng_uniform(&r) < 0.2 ? 0.0 : pow(10.0, pbd_rng_range(&r, -2, 2));
        w[n % 4] = 1.0; /* never all fixed */
        double phi0 = M_PI;
        if (eval_c(&pbd_bend_dihedral_type, x, &phi0, NULL, NULL) < -M_PI / 2) n_folded++;
        int st;
        double C = eval_c(&pbd_bend_isometric_type, x, rest, NULL, &st);
        pbd_eval_input in = {x, 4, rest, NULL, 0};
        if (st != PBD_EVAL_OK || pbd_project_generic(&pbd_bend_isometric_type, &in, w, 1.0, x, g) !=
                                     PBD_EVAL_OK)
            continue; /* K·w = 0 (only fixed points carry K): nothing to move */
        double C1 = eval_c(&pbd_bend_isometric_type, x, rest, NULL, NULL);
        double rel = fabs(C1 - C / 4) / (fabs(C) + 1e-12 * rest[0] * L * L);
        CU_ASSERT(rel <= 1e-9);
        if (rel > worst) worst = rel;
    }
    CU_ASSERT(n_folded > 100); /* the sample includes many folded hinges */
    printf("\n    one projection: |C' - C/4| / |C| <= %.1e over 1000 hinges (%d folded past pi/2) ",
           worst, n_folded);
}

void register_bending_isometric_tests(void)
{
    CU_pSuite s = CU_add_suite("bending_isometric", NULL, NULL);
    CU_add_test(s, "isometric_properties", test_isometric_properties);
    CU_add_test(s, "isometric_patch_flattens", test_isometric_patch_flattens);
    CU_add_test(s, "projection_reduces_c", test_projection_reduces_c);
    CU_add_test(s, "through_world_step", test_through_world_step);
    CU_add_test(s, "inplane_flip_reads_as_fold", test_inplane_flip_reads_as_fold);
    CU_add_test(s, "folded_fan_runs_away", test_folded_fan_runs_away);
    CU_add_test(s, "isometric_projection_quarters_energy",
                test_isometric_projection_quarters_energy);
}
