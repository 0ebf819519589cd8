/* One width of the distance colour kernel (constraints/distance_simd.c includes this once per
 * instruction set with DS_W lanes, vector types DS_V / DS_VI, DS_SQRT, DS_GATHER and the
 * function name DS_FN). Lane l projects one constraint with exactly the operations of
 * distance_pbd_one / distance_xpbd_one (constraints/distance.c), so the results are theirs
 * bit for bit, whatever the width and however a colour is cut. */

static inline DS_V DS_NAME(load)(const double *p)
{
    DS_V v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* lanes begin .. begin+n (n <= DS_W); returns the constraints skipped as degenerate */
static inline __attribute__((always_inline)) int
DS_NAME(block)(const pbd_batch *b, const int32_t *rows, int begin, int n, int xpbd)
{
    int32_t i1[DS_W], i2[DS_W], c_of[DS_W];
    double rest[DS_W], coef[DS_W], lam[DS_W];
#ifdef DS_CONTIGUOUS
    const int straight = !rows && n == DS_W; /* sorted by colour: the rows are contiguous */
    if (straight) {
        DS_CONTIGUOUS(b->idx + 2 * (size_t)begin, i1, i2);
        memcpy(rest, b->rest + begin, sizeof rest);
        memcpy(coef, (xpbd ? b->compliance : b->stiffness) + begin, sizeof coef);
        memcpy(lam, b->lambda + begin, sizeof lam);
        for (int l = 0; l < DS_W; l++) c_of[l] = begin + l;
    } else
#endif
    for (int l = 0; l < DS_W; l++) { /* an unused lane repeats lane 0; never written */
        int q = begin + (l < n ? l : 0), c = rows ? rows[q] : q;
        c_of[l] = c;
        i1[l] = b->idx[2 * (size_t)c];
        i2[l] = b->idx[2 * (size_t)c + 1];
        rest[l] = b->rest[c];
        coef[l] = xpbd ? b->compliance[c] : b->stiffness[c];
        lam[l] = b->lambda[c];
    }
#ifdef DS_LOAD_XYZ
    DS_V ax, ay, az, bx, by, bz;
    DS_LOAD_XYZ(b->pos, i1, &ax, &ay, &az);
    DS_LOAD_XYZ(b->pos, i2, &bx, &by, &bz);
#else
    DS_V ax = DS_GATHER(b->pos, i1, 0), ay = DS_GATHER(b->pos, i1, 1), az = DS_GATHER(b->pos, i1, 2);
    DS_V bx = DS_GATHER(b->pos, i2, 0), by = DS_GATHER(b->pos, i2, 1), bz = DS_GATHER(b->pos, i2, 2);
#endif
    DS_V w1 = DS_GATHERW(b->inv_mass, i1), w2 = DS_GATHERW(b->inv_mass, i2);
    DS_V dx = ax - bx, dy = ay - by, dz = az - bz;
    DS_V len = DS_SQRT(dx * dx + dy * dy + dz * dz), wsum = w1 + w2;
    DS_VI ok = (wsum > 0.0) & (len >= DISTANCE_MIN_LENGTH);
    DS_V r = DS_NAME(load)(rest), f1, f2, dl;
    if (xpbd) { /* distance_xpbd_one */
        DS_V alpha_tilde = DS_NAME(load)(coef) * b->alpha_scale;
        DS_V t = ((r - len) - alpha_tilde * DS_NAME(load)(lam)) / ((wsum + alpha_tilde) * len);
        dl = t * len;
        f1 = w1 * t;
        f2 = -w2 * t;
    } else { /* distance_pbd_one */
        DS_V s = DS_NAME(load)(coef) * (len - r) / (wsum * len);
        dl = -s * len;
        f1 = -w1 * s;
        f2 = w2 * s;
    }
    DS_V nax = ax + f1 * dx, nay = ay + f1 * dy, naz = az + f1 * dz;
    DS_V nbx = bx + f2 * dx, nby = by + f2 * dy, nbz = bz + f2 * dz;
#ifdef DS_SCATTER
    if (straight) { /* masked scatters: the lanes that project, the particles that move */
        DS_VI m1 = ok & (w1 > 0.0), m2 = ok & (w2 > 0.0);
        DS_SCATTER(b->pos, i1, m1, nax, nay, naz);
        DS_SCATTER(b->pos, i2, m2, nbx, nby, nbz);
        return DS_STORE_MASKED(b->lambda + begin, ok, DS_NAME(load)(lam) + dl);
    }
#endif
    double o[6][DS_W], d[DS_W], wa[DS_W], wb[DS_W];
    int64_t okl[DS_W];
    memcpy(okl, &ok, sizeof okl);
    memcpy(d, &dl, sizeof d);
    memcpy(wa, &w1, sizeof wa);
    memcpy(wb, &w2, sizeof wb);
    memcpy(o[0], &nax, sizeof d);
    memcpy(o[1], &nay, sizeof d);
    memcpy(o[2], &naz, sizeof d);
    memcpy(o[3], &nbx, sizeof d);
    memcpy(o[4], &nby, sizeof d);
    memcpy(o[5], &nbz, sizeof d);
    int skipped = 0;
    for (int l = 0; l < n; l++) {
        if (!okl[l]) {
            skipped++;
            continue;
        }
        b->lambda[c_of[l]] = lam[l] + d[l];
        if (wa[l] > 0.0) {
            double *p = b->pos + 3 * (size_t)i1[l];
            p[0] = o[0][l], p[1] = o[1][l], p[2] = o[2][l];
        }
        if (wb[l] > 0.0) {
            double *p = b->pos + 3 * (size_t)i2[l];
            p[0] = o[3][l], p[1] = o[4][l], p[2] = o[5][l];
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
