/* One width of the distance constraint's vertex-block kernel (constraints/distance_vblock.c
 * includes this once per instruction set, with VB_W lanes, vector types VB_V / VB_VI,
 * VB_SQRT and the function name VB_FN defined). Lane l evaluates one (spring, particle j)
 * pair with exactly the operations of distance_vertex_block (constraints/distance.c) in the
 * same order, so every lane's C, ∇_jC and ∇²_jjC are the scalar ones bit for bit. */

static void VB_FN(const double *pos, const int32_t *idx, const double *rest, int j,
                  const int32_t *cs, const int32_t *os, int n, pbd_vertex_terms *out)
{
    for (int k0 = 0; k0 < n; k0 += VB_W) {
        const int m = n - k0 < VB_W ? n - k0 : VB_W;
        double xs[3][VB_W], rs[VB_W];
        for (int l = 0; l < VB_W; l++) { /* an unused lane repeats lane 0; never written */
            int c = cs[k0 + (l < m ? l : 0)];
            const double *p0 = pos + 3 * (size_t)idx[2 * (size_t)c];
            const double *p1 = pos + 3 * (size_t)idx[2 * (size_t)c + 1];
            for (int r = 0; r < 3; r++) xs[r][l] = p0[r] - p1[r]; /* v3_sub */
            rs[l] = rest[c];
        }
        VB_V d[3], rv, nv[3], B[9], g[3];
        for (int r = 0; r < 3; r++) memcpy(&d[r], xs[r], sizeof d[r]);
        memcpy(&rv, rs, sizeof rv);
        VB_V len = VB_SQRT(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        VB_V C = len - rv;
        VB_VI ok = ~(len < DISTANCE_MIN_LENGTH);
        VB_V sg = j == 0 ? 1.0 / len : -1.0 / len, s = 1.0 / len;
        for (int r = 0; r < 3; r++) {
            g[r] = d[r] * sg;
            nv[r] = d[r] * s;
        }
        for (int a = 0; a < 3; a++) /* m3_projector */
            for (int b = 0; b < 3; b++) B[3 * a + b] = s * ((a == b ? 1.0 : 0.0) - nv[a] * nv[b]);
        long okl[VB_W];
        double Cl[VB_W], gl[3][VB_W], Bl[9][VB_W];
        memcpy(okl, &ok, sizeof okl);
        memcpy(Cl, &C, sizeof Cl);
        for (int r = 0; r < 3; r++) memcpy(gl[r], &g[r], sizeof gl[r]);
        for (int k = 0; k < 9; k++) memcpy(Bl[k], &B[k], sizeof Bl[k]);
        for (int l = 0; l < m; l++) {
            pbd_vertex_terms *t = out + os[k0 + l];
            t->C = Cl[l];
            if (!okl[l]) { /* as the scalar block: (nearly) coincident ends, no direction */
                t->status = PBD_EVAL_DEGENERATE;
                t->hess_ok = 0;
                continue;
            }
            for (int r = 0; r < 3; r++) t->g[r] = gl[r][l];
            for (int k = 0; k < 9; k++) t->B[k] = Bl[k][l];
            t->status = PBD_EVAL_OK;
            t->hess_ok = 1;
        }
    }
}
