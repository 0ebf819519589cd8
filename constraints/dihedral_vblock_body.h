/* One width of the dihedral vertex-block kernel (constraints/bend_dihedral_vblock.c includes
 * this once per instruction set, with VB_W lanes, vector types VB_V / VB_VI, VB_SQRT and the
 * function name VB_FN defined). Lane l evaluates one (hinge, particle j) pair with exactly the
 * operations of dihedral_vertex_block (constraints/bend_dihedral.c) in the same order —
 * hinge_compute, the row j of hinge_grad, hinge_block and hinge_tri_terms — so every lane's
 * ∇_jC and ∇²_jjC are the scalar ones bit for bit (they do not depend on φ); φ =
 * atan2(|sin φ|, cos φ) is SLEEF's vector atan2 (VB_ATAN2, 3.5 ulp), so C agrees with the
 * scalar block's (glibc's atan2) to a few ulp of φ (the bound: tests/test_vertex_block.c;
 * with the test hook pbd_test_vblock_scalar_math, glibc's lane by lane, bit for bit). A
 * degenerate hinge (zero area, the kink) gets the scalar block's status and ∇_jC = 0, and
 * C = 0. */

static inline VB_V VB_NAME(sel)(VB_VI m, VB_V a, VB_V b)
{
    return (VB_V)(((VB_VI)a & m) | ((VB_VI)b & ~m));
}

static inline VB_V VB_NAME(load)(const double *p)
{
    VB_V v;
    memcpy(&v, p, sizeof v);
    return v;
}

typedef struct {
    VB_V x, y, z;
} VB_NAME(v3);

static inline VB_NAME(v3) VB_NAME(sub)(VB_NAME(v3) a, VB_NAME(v3) b)
{
    return (VB_NAME(v3)){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline VB_V VB_NAME(dot)(VB_NAME(v3) a, VB_NAME(v3) b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline VB_NAME(v3) VB_NAME(cross)(VB_NAME(v3) a, VB_NAME(v3) b)
{
    return (VB_NAME(v3)){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline VB_NAME(v3) VB_NAME(scale)(VB_NAME(v3) a, VB_V s)
{
    return (VB_NAME(v3)){a.x * s, a.y * s, a.z * s};
}
static inline void VB_NAME(arr)(VB_NAME(v3) a, VB_V *r)
{
    r[0] = a.x;
    r[1] = a.y;
    r[2] = a.z;
}

/* r = P [v]× (m3_mul_skew) */
static inline void VB_NAME(mul_skew)(VB_V *r, const VB_V *P, const VB_V *v)
{
    for (int i = 0; i < 3; i++) {
        const VB_V *p = P + 3 * i;
        r[3 * i] = p[1] * v[2] + p[2] * -v[1];
        r[3 * i + 1] = p[0] * -v[2] + p[2] * v[0];
        r[3 * i + 2] = p[0] * v[1] + p[1] * -v[0];
    }
}

typedef struct {
    VB_V vv[9], ve[9], ee[9];
} VB_NAME(tri);

/* hinge_tri_terms: v, n, area of the triangle, e and |e| of the hinge */
static inline __attribute__((always_inline)) void
VB_NAME(tri_terms)(const VB_V *v, const VB_V *n, VB_V area, const VB_V *e, VB_V el, int need,
                   VB_NAME(tri) *o)
{
    VB_V a2 = area * area, P[9], PS[9], u[3], eh[3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            P[3 * a + b] = ((a == b ? 1.0 : 0.0) + -2.0 * n[a] * n[b]) / a2;
    if (need & TRI_VV) VB_NAME(mul_skew)(o->vv, P, e);
    if (!(need & (TRI_VE | TRI_EE))) return;
    VB_V ra = 1.0 / area, re = 1.0 / el;
    for (int i = 0; i < 3; i++) {
        u[i] = n[i] * ra;
        eh[i] = e[i] * re;
    }
    VB_NAME(mul_skew)(PS, P, v);
    if (need & TRI_VE)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) o->ve[3 * a + b] = -el * PS[3 * a + b] + 1.0 * u[a] * eh[b];
    if (need & TRI_EE) {
        VB_V sv = v[0] * eh[0] + v[1] * eh[1] + v[2] * eh[2], w[3], rl = 1.0 / el;
        for (int i = 0; i < 3; i++) w[i] = v[i] + -sv * eh[i];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) o->ee[3 * a + b] = -sv * PS[3 * a + b] + rl * u[a] * w[b];
    }
}

static void VB_FN(const double *pos, const int32_t *idx, const double *rest, int j,
                  const int32_t *cs, const int32_t *os, int n, pbd_vertex_terms *out)
{
    for (int k0 = 0; k0 < n; k0 += VB_W) {
        const int m = n - k0 < VB_W ? n - k0 : VB_W;
        double xs[12][VB_W], rs[VB_W];
        for (int l = 0; l < VB_W; l++) { /* an unused lane repeats lane 0; never written */
            int c = cs[k0 + (l < m ? l : 0)];
            const int32_t *r = idx + 4 * (size_t)c;
            for (int q = 0; q < 4; q++) {
                const double *p = pos + 3 * (size_t)r[q];
                xs[3 * q][l] = p[0];
                xs[3 * q + 1][l] = p[1];
                xs[3 * q + 2][l] = p[2];
            }
            rs[l] = rest[c];
        }
        VB_NAME(v3) x[4];
        for (int q = 0; q < 4; q++)
            x[q] = (VB_NAME(v3)){VB_NAME(load)(xs[3 * q]), VB_NAME(load)(xs[3 * q + 1]),
                                 VB_NAME(load)(xs[3 * q + 2])};
        /* hinge_compute */
        VB_NAME(v3) e = VB_NAME(sub)(x[1], x[0]), a = VB_NAME(sub)(x[2], x[0]),
                    b = VB_NAME(sub)(x[3], x[0]);
        VB_V elen = VB_SQRT(VB_NAME(dot)(e, e)), aa = VB_NAME(dot)(a, a), bb = VB_NAME(dot)(b, b);
        /* max(|e|, |a|, |b|): sqrt is monotonic and correctly rounded, so sqrt(max(a², b²)) =
         * max(|a|, |b|); a NaN (where fmax would differ) fails the tests below in both */
        VB_V ab = VB_SQRT(VB_NAME(sel)(aa > bb, aa, bb));
        VB_V size = VB_NAME(sel)(elen > ab, elen, ab);
        VB_NAME(v3) c1 = VB_NAME(cross)(e, a), c2 = VB_NAME(cross)(e, b);
        VB_V c1n = VB_SQRT(VB_NAME(dot)(c1, c1)), c2n = VB_SQRT(VB_NAME(dot)(c2, c2));
        VB_V tol = BEND_MIN_REL * size;
        VB_VI ok = (size > BEND_MIN_SIZE) & (size < INFINITY) & (elen > tol) &
                   (c1n > tol * elen) & (c2n > tol * elen);
        VB_NAME(v3) n1 = VB_NAME(scale)(c1, 1.0 / c1n), n2 = VB_NAME(scale)(c2, 1.0 / c2n);
        VB_V d = VB_NAME(dot)(n1, n2);
        d = VB_NAME(sel)(d < -1.0, (VB_V){} - 1.0, VB_NAME(sel)(d > 1.0, (VB_V){} + 1.0, d));
        VB_V sin_signed = VB_NAME(dot)(VB_NAME(cross)(n1, n2), e) / elen;
        VB_V abs_sin = (VB_V)((VB_VI)sin_signed & ((VB_VI){} + 0x7fffffffffffffffL));
        ok &= abs_sin > BEND_MIN_SIN;
        /* the row j of hinge_grad */
        VB_V sigma = VB_NAME(sel)(sin_signed > 0.0, (VB_V){} + 1.0, (VB_V){} - 1.0);
        VB_NAME(v3) g;
        if (j == 2) {
            g = VB_NAME(scale)(n1, -sigma * elen / c1n);
        } else if (j == 3) {
            g = VB_NAME(scale)(n2, sigma * elen / c2n);
        } else {
            VB_V ae = VB_NAME(dot)(a, e) / elen, be = VB_NAME(dot)(b, e) / elen;
            VB_NAME(v3) g2 = VB_NAME(scale)(n1, sigma * ae / c1n);
            VB_V f = -sigma * be / c2n;
            g2.x += f * n2.x;
            g2.y += f * n2.y;
            g2.z += f * n2.z;
            g = g2;
            if (j == 0) {
                VB_NAME(v3) g3 = VB_NAME(scale)(n1, -sigma * elen / c1n);
                VB_NAME(v3) g4 = VB_NAME(scale)(n2, sigma * elen / c2n);
                g = (VB_NAME(v3)){-g2.x - g3.x - g4.x, -g2.y - g3.y - g4.y, -g2.z - g3.z - g4.z};
            }
        }
        /* hinge_block */
        VB_V ev[3], av[3], bv[3], n1v[3], n2v[3], B[9];
        VB_NAME(arr)(e, ev);
        VB_NAME(arr)(a, av);
        VB_NAME(arr)(b, bv);
        VB_NAME(arr)(n1, n1v);
        VB_NAME(arr)(n2, n2v);
        VB_V s_vv0 = -1.0 * sigma * elen, s_vv1 = 1.0 * sigma * elen;
        VB_V s_ve0 = -1.0 * sigma, s_ve1 = 1.0 * sigma, s_ee0 = 1.0 * sigma, s_ee1 = -1.0 * sigma;
        VB_NAME(tri) o0, o1;
        if (j >= 2) {
            if (j == 2) VB_NAME(tri_terms)(av, n1v, c1n, ev, elen, TRI_VV, &o0);
            else VB_NAME(tri_terms)(bv, n2v, c2n, ev, elen, TRI_VV, &o0);
            VB_V s = j == 2 ? s_vv0 : s_vv1;
            for (int k = 0; k < 9; k++) B[k] = 0.0 + (0.0 + s * o0.vv[k]);
        } else {
            int need = j == 1 ? TRI_EE : TRI_ALL;
            VB_NAME(tri_terms)(av, n1v, c1n, ev, elen, need, &o0);
            VB_NAME(tri_terms)(bv, n2v, c2n, ev, elen, need, &o1);
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++) {
                    int k = 3 * p + q, kt = 3 * q + p;
                    VB_V ee = (0.0 + s_ee0 * o0.ee[k]) + s_ee1 * o1.ee[k];
                    if (j == 1) {
                        B[k] = 0.0 + ee;
                        continue;
                    }
                    VB_V s = 0.0 + ee;
                    s += 0.0 + s_ve0 * o0.ve[kt]; /* G_ea */
                    s += 0.0 + s_ve1 * o1.ve[kt]; /* G_eb */
                    s += 0.0 + s_ve0 * o0.ve[k];  /* G_ae */
                    s += 0.0 + s_vv0 * o0.vv[k];  /* G_aa */
                    s += 0.0;                     /* G_ab */
                    s += 0.0 + s_ve1 * o1.ve[k];  /* G_be */
                    s += 0.0;                     /* G_ba */
                    s += 0.0 + s_vv1 * o1.vv[k];  /* G_bb */
                    B[k] = s;
                }
        }
        VB_V Cv = VB_ATAN2(abs_sin, d) - VB_NAME(load)(rs);
        long okl[VB_W];
        double Cl[VB_W], gl[3][VB_W], Bl[9][VB_W];
        memcpy(okl, &ok, sizeof okl);
        memcpy(Cl, &Cv, sizeof Cl);
        if (pbd_test_vblock_scalar_math) { /* the scalar block's atan2 (glibc's) */
            double sl[VB_W], dl[VB_W];
            memcpy(sl, &abs_sin, sizeof sl);
            memcpy(dl, &d, sizeof dl);
            for (int l = 0; l < m; l++) Cl[l] = atan2(sl[l], dl[l]) - rs[l];
        }
        memcpy(gl[0], &g.x, sizeof gl[0]);
        memcpy(gl[1], &g.y, sizeof gl[1]);
        memcpy(gl[2], &g.z, sizeof gl[2]);
        for (int k = 0; k < 9; k++) memcpy(Bl[k], &B[k], sizeof Bl[k]);
        for (int l = 0; l < m; l++) {
            pbd_vertex_terms *t = out + os[k0 + l];
            if (!okl[l]) { /* as the scalar block: zero area or the kink, ∇_jC = 0; C is
                            * unspecified for a degenerate pair (pbd_vertex_block_fn): 0 */
                t->C = 0.0;
                for (int r = 0; r < 3; r++) t->g[r] = 0.0;
                t->status = PBD_EVAL_DEGENERATE;
                t->hess_ok = 0;
                continue;
            }
            t->C = Cl[l];
            for (int r = 0; r < 3; r++) t->g[r] = gl[r][l];
            for (int k = 0; k < 9; k++) t->B[k] = Bl[k][l];
            t->status = PBD_EVAL_OK;
            t->hess_ok = 1;
        }
    }
}
