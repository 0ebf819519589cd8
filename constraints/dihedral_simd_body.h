/* One width of the dihedral colour kernel (constraints/bend_dihedral_simd.c includes this
 * once per instruction set, with DS_W lanes, vector types DS_V / DS_VI, DS_SQRT, DS_ATAN2 and
 * the function name DS_FN defined). Lane l projects one hinge with exactly the operations of
 * dihedral_eval + bg_project (constraints/bend_dihedral.c, batch_generic.h), in the same
 * order, so every lane's result is the scalar one except for atan2, which is SLEEF's here. */

/* r = m ? a : b, lane-wise */
static inline DS_V DS_NAME(sel)(DS_VI m, DS_V a, DS_V b)
{
    return (DS_V)(((DS_VI)a & m) | ((DS_VI)b & ~m));
}

/* fmax as C99 defines it: a NaN argument loses */
static inline DS_V DS_NAME(fmax)(DS_V a, DS_V b)
{
    DS_V m = DS_NAME(sel)(a > b, a, b);
    m = DS_NAME(sel)(a != a, b, m);
    return DS_NAME(sel)(b != b, a, m);
}

static inline DS_V DS_NAME(load)(const double *p)
{
    DS_V v;
    memcpy(&v, p, sizeof v);
    return v;
}

typedef struct {
    DS_V x, y, z;
} DS_NAME(v3);

static inline DS_NAME(v3) DS_NAME(sub)(DS_NAME(v3) a, DS_NAME(v3) b)
{
    return (DS_NAME(v3)){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline DS_V DS_NAME(dot)(DS_NAME(v3) a, DS_NAME(v3) b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline DS_NAME(v3) DS_NAME(cross)(DS_NAME(v3) a, DS_NAME(v3) b)
{
    return (DS_NAME(v3)){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline DS_NAME(v3) DS_NAME(scale)(DS_NAME(v3) a, DS_V s)
{
    return (DS_NAME(v3)){a.x * s, a.y * s, a.z * s};
}

/* Lanes begin .. begin+n (n <= DS_W) of rows; returns the hinges skipped as degenerate. */
static inline __attribute__((always_inline)) int
DS_NAME(block)(const pbd_batch *b, const int32_t *rows, int begin, int n, int xpbd)
{
    double g[12][DS_W], wm[4][DS_W], rest[DS_W], coef[DS_W];
    int32_t c_of[DS_W];
#ifdef DS_CONTIGUOUS
    int32_t ix[4][DS_W];
    const int straight = !rows && n == DS_W; /* sorted by colour: the rows are contiguous */
    if (straight) {
        DS_CONTIGUOUS(b->idx + 4 * (size_t)begin, ix);
        memcpy(rest, b->rest + begin, sizeof rest);
        if (xpbd)
            for (int l = 0; l < DS_W; l++) coef[l] = b->compliance[begin + l] * b->alpha_scale;
        else
            memcpy(coef, b->stiffness + begin, sizeof coef);
        for (int l = 0; l < DS_W; l++) c_of[l] = begin + l;
    } else
#endif
    for (int l = 0; l < DS_W; l++) { /* an unused lane repeats lane 0; never written */
        int q = begin + (l < n ? l : 0), c = rows ? rows[q] : q;
        const int32_t *idx = b->idx + 4 * (size_t)c;
        c_of[l] = c;
        for (int j = 0; j < 4; j++) {
            const double *p = b->pos + 3 * (size_t)idx[j];
            g[3 * j][l] = p[0];
            g[3 * j + 1][l] = p[1];
            g[3 * j + 2][l] = p[2];
            wm[j][l] = b->inv_mass[idx[j]];
        }
        rest[l] = b->rest[c];
        coef[l] = xpbd ? b->compliance[c] * b->alpha_scale : b->stiffness[c];
    }
    DS_NAME(v3) x1, x2, x3, x4;
    DS_V w1, w2, w3, w4;
#ifdef DS_CONTIGUOUS
    if (straight) { /* particle by particle, transposed in registers; w by gathers */
        DS_LOAD_XYZ(b->pos, ix[0], &x1.x, &x1.y, &x1.z);
        DS_LOAD_XYZ(b->pos, ix[1], &x2.x, &x2.y, &x2.z);
        DS_LOAD_XYZ(b->pos, ix[2], &x3.x, &x3.y, &x3.z);
        DS_LOAD_XYZ(b->pos, ix[3], &x4.x, &x4.y, &x4.z);
        w1 = DS_GATHERW(b->inv_mass, ix[0]);
        w2 = DS_GATHERW(b->inv_mass, ix[1]);
        w3 = DS_GATHERW(b->inv_mass, ix[2]);
        w4 = DS_GATHERW(b->inv_mass, ix[3]);
    } else
#endif
    {
        x1 = (DS_NAME(v3)){DS_NAME(load)(g[0]), DS_NAME(load)(g[1]), DS_NAME(load)(g[2])};
        x2 = (DS_NAME(v3)){DS_NAME(load)(g[3]), DS_NAME(load)(g[4]), DS_NAME(load)(g[5])};
        x3 = (DS_NAME(v3)){DS_NAME(load)(g[6]), DS_NAME(load)(g[7]), DS_NAME(load)(g[8])};
        x4 = (DS_NAME(v3)){DS_NAME(load)(g[9]), DS_NAME(load)(g[10]), DS_NAME(load)(g[11])};
        w1 = DS_NAME(load)(wm[0]), w2 = DS_NAME(load)(wm[1]), w3 = DS_NAME(load)(wm[2]);
        w4 = DS_NAME(load)(wm[3]);
    }
    /* hinge_compute */
    DS_NAME(v3) e = DS_NAME(sub)(x2, x1), a = DS_NAME(sub)(x3, x1), bb = DS_NAME(sub)(x4, x1);
    DS_V elen = DS_SQRT(DS_NAME(dot)(e, e));
    /* max(|e|, |a|, |b|) with one square root for |a| and |b|: sqrt is monotonic and
     * correctly rounded, so sqrt(max(a², b²)) = max(|a|, |b|) exactly (a NaN loses in both) */
    DS_V size = DS_NAME(fmax)(elen, DS_SQRT(DS_NAME(fmax)(DS_NAME(dot)(a, a), DS_NAME(dot)(bb, bb))));
    DS_NAME(v3) c1 = DS_NAME(cross)(e, a), c2 = DS_NAME(cross)(e, bb);
    DS_V c1n = DS_SQRT(DS_NAME(dot)(c1, c1)), c2n = DS_SQRT(DS_NAME(dot)(c2, c2));
    DS_V tol = BEND_MIN_REL * size;
    DS_VI ok = (size > BEND_MIN_SIZE) & (size < INFINITY) & (elen > tol) & (c1n > tol * elen) &
               (c2n > tol * elen);
    /* three divisions, the rest multiplications by these reciprocals (dihedral_eval divides
     * eight times: the results differ from it by rounding, ~1 ulp per factor) */
    DS_V r1 = 1.0 / c1n, r2 = 1.0 / c2n, re = 1.0 / elen;
    DS_NAME(v3) n1 = DS_NAME(scale)(c1, r1), n2 = DS_NAME(scale)(c2, r2);
    DS_V d = DS_NAME(dot)(n1, n2);
    d = DS_NAME(sel)(d < -1.0, (DS_V){} - 1.0, DS_NAME(sel)(d > 1.0, (DS_V){} + 1.0, d));
    DS_V sin_signed = DS_NAME(dot)(DS_NAME(cross)(n1, n2), e) * re;
    DS_V abs_sin = (DS_V)((DS_VI)sin_signed & ((DS_VI){} + 0x7fffffffffffffffL));
    DS_V C = DS_ATAN2(abs_sin, d) - DS_NAME(load)(rest);
    ok &= abs_sin > BEND_MIN_SIN;
    /* dihedral_eval's gradient */
    DS_V sigma = DS_NAME(sel)(sin_signed > 0.0, (DS_V){} + 1.0, (DS_V){} - 1.0);
    DS_V ae = DS_NAME(dot)(a, e) * re, be = DS_NAME(dot)(bb, e) * re;
    DS_NAME(v3) g3 = DS_NAME(scale)(n1, -sigma * elen * r1);
    DS_NAME(v3) g4 = DS_NAME(scale)(n2, sigma * elen * r2);
    DS_NAME(v3) g2 = DS_NAME(scale)(n1, sigma * ae * r1);
    DS_V f = -sigma * be * r2;
    g2.x += f * n2.x;
    g2.y += f * n2.y;
    g2.z += f * n2.z;
    DS_NAME(v3) g1 = {-g2.x - g3.x - g4.x, -g2.y - g3.y - g4.y, -g2.z - g3.z - g4.z};
    /* bg_project */
    DS_V denom = (DS_V){} + 0.0;
    denom += w1 * (g1.x * g1.x + g1.y * g1.y + g1.z * g1.z);
    denom += w2 * (g2.x * g2.x + g2.y * g2.y + g2.z * g2.z);
    denom += w3 * (g3.x * g3.x + g3.y * g3.y + g3.z * g3.z);
    denom += w4 * (g4.x * g4.x + g4.y * g4.y + g4.z * g4.z);
    DS_V Cabs = (DS_V)((DS_VI)C & ((DS_VI){} + 0x7fffffffffffffffL));
    ok &= (denom > BG_MIN_DENOMINATOR) & (Cabs <= DBL_MAX); /* !(denom > min) || !isfinite(C) */
    DS_V t1, t2, t3, t4, dl;
    double lam[DS_W];
    for (int l = 0; l < DS_W; l++) lam[l] = b->lambda[c_of[l]];
    (void)g;
    (void)wm;
    if (xpbd) { /* XPBD Eq. 18: x_j += Δλ w_j ∇_j C */
        DS_V at = DS_NAME(load)(coef);
        dl = (-C - at * DS_NAME(load)(lam)) / (denom + at);
        t1 = dl * w1, t2 = dl * w2, t3 = dl * w3, t4 = dl * w4;
    } else { /* PBD Eq. 8–9: x_j -= k s w_j ∇_j C, s = C / Σ w|∇C|² */
        DS_V k = DS_NAME(load)(coef), ks = k * (C / denom);
        dl = -k * (C / denom);
        t1 = -(ks * w1), t2 = -(ks * w2), t3 = -(ks * w3), t4 = -(ks * w4);
    }
    /* x - (k s w) g == x + (-(k s w)) g exactly: negation is exact */
    DS_NAME(v3) y1 = {x1.x + t1 * g1.x, x1.y + t1 * g1.y, x1.z + t1 * g1.z};
    DS_NAME(v3) y2 = {x2.x + t2 * g2.x, x2.y + t2 * g2.y, x2.z + t2 * g2.z};
    DS_NAME(v3) y3 = {x3.x + t3 * g3.x, x3.y + t3 * g3.y, x3.z + t3 * g3.z};
    DS_NAME(v3) y4 = {x4.x + t4 * g4.x, x4.y + t4 * g4.y, x4.z + t4 * g4.z};
#ifdef DS_CONTIGUOUS
    if (straight) { /* masked stores: the lanes that project, the particles that move */
        DS_SCATTER(b->pos, ix[0], ok & ~(w1 <= 0.0), y1.x, y1.y, y1.z);
        DS_SCATTER(b->pos, ix[1], ok & ~(w2 <= 0.0), y2.x, y2.y, y2.z);
        DS_SCATTER(b->pos, ix[2], ok & ~(w3 <= 0.0), y3.x, y3.y, y3.z);
        DS_SCATTER(b->pos, ix[3], ok & ~(w4 <= 0.0), y4.x, y4.y, y4.z);
        return DS_STORE_MASKED(b->lambda + begin, ok, DS_NAME(load)(lam) + dl);
    }
#endif
    double out[12][DS_W], dls[DS_W];
    int64_t okl[DS_W];
    memcpy(okl, &ok, sizeof okl);
    memcpy(dls, &dl, sizeof dls);
    memcpy(out[0], &y1.x, sizeof out[0]);
    memcpy(out[1], &y1.y, sizeof out[0]);
    memcpy(out[2], &y1.z, sizeof out[0]);
    memcpy(out[3], &y2.x, sizeof out[0]);
    memcpy(out[4], &y2.y, sizeof out[0]);
    memcpy(out[5], &y2.z, sizeof out[0]);
    memcpy(out[6], &y3.x, sizeof out[0]);
    memcpy(out[7], &y3.y, sizeof out[0]);
    memcpy(out[8], &y3.z, sizeof out[0]);
    memcpy(out[9], &y4.x, sizeof out[0]);
    memcpy(out[10], &y4.y, sizeof out[0]);
    memcpy(out[11], &y4.z, sizeof out[0]);
    int skipped = 0;
    for (int l = 0; l < n; l++) {
        if (!okl[l]) {
            skipped++;
            continue;
        }
        int c = c_of[l];
        b->lambda[c] = lam[l] + dls[l];
        const int32_t *idx = b->idx + 4 * (size_t)c;
        for (int j = 0; j < 4; j++) {
            if (wm[j][l] <= 0.0) continue; /* fixed: never written */
            double *p = b->pos + 3 * (size_t)idx[j];
            p[0] = out[3 * j][l];
            p[1] = out[3 * j + 1][l];
            p[2] = out[3 * j + 2][l];
        }
    }
    return skipped;
}

static int DS_FN(const pbd_batch *b, const int32_t *rows, int begin, int end, int xpbd)
{
    int skipped = 0;
    if (xpbd)
        for (int q = begin; q < end; q += DS_W)
            skipped += DS_NAME(block)(b, rows, q, end - q < DS_W ? end - q : DS_W, 1);
    else
        for (int q = begin; q < end; q += DS_W)
            skipped += DS_NAME(block)(b, rows, q, end - q < DS_W ? end - q : DS_W, 0);
    return skipped;
}
