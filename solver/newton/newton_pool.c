/* A recycling allocator for SuiteSparse inside the Newton reference (newton_private.h):
 * no allocation inside a step after the first (solver/newton/README.md "Newton reference").
 *
 * CHOLMOD and UMFPACK allocate inside every numeric factorisation and solve (CHOLMOD's
 * permuted transposes of A and the supernodal update matrix, UMFPACK's Numeric object), and
 * free it all before they return. Their memory goes through SuiteSparse_config's malloc,
 * calloc, realloc and free (SuiteSparse_config.h), which pbdlab points here once. While a
 * pool is current on the calling thread (newton_pool_enter .. newton_pool_leave, around
 * every SuiteSparse call of solver/newton/newton_linear.c), a block it frees is kept, and a later
 * request of exactly the same size gets it back: the same pattern makes the same requests
 * in every Newton iteration, so after the first factorisation of a step every request is a
 * hit (the smallest kept block that holds it, at most twice its size; a realloc that fits
 * stays in place, as UMFPACK's growing workspace does). The pool gives everything back to the system when its system is freed
 * (newton_pool_destroy). Outside a pool the hooks are plain malloc and free; a block the
 * current pool does not know is freed as usual, so memory SuiteSparse allocated elsewhere
 * stays valid. */
#include "newton_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <SuiteSparse_config.h>

typedef struct pool_block {
    void *p;
    size_t size; /* its capacity: what it was allocated with */
    int live;    /* handed out (1) or kept for reuse (0) */
} pool_block;

struct newton_pool {
    pool_block *blk;
    size_t n, cap;
    long misses; /* requests served by the system allocator */
};

static _Thread_local newton_pool *current;

static void *pool_malloc(size_t size)
{
    newton_pool *pl = current;
    if (!pl) return malloc(size);
    /* the smallest kept block that holds it, if not more than twice as large */
    size_t best = pl->n;
    for (size_t i = 0; i < pl->n; i++)
        if (!pl->blk[i].live && pl->blk[i].size >= size && pl->blk[i].size <= 2 * size + 128 &&
            (best == pl->n || pl->blk[i].size < pl->blk[best].size))
            best = i;
    if (best < pl->n) {
        pl->blk[best].live = 1;
        return pl->blk[best].p;
    }
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? 2 * pl->cap : 64;
        pool_block *b = realloc(pl->blk, cap * sizeof *b);
        if (!b) return NULL;
        pl->blk = b;
        pl->cap = cap;
    }
    /* a quarter more than asked: a request that grows a little later (a pivot sequence
     * that changes with the values) still finds its block */
    size_t cap = size + size / 4 + 64;
    void *p = malloc(cap);
    if (!p) return NULL;
    pl->blk[pl->n++] = (pool_block){p, cap, 1};
    pl->misses++;
    return p;
}

/* The current pool's entry of p, or NULL. */
static pool_block *pool_find(void *p)
{
    newton_pool *pl = current;
    for (size_t i = 0; pl && i < pl->n; i++)
        if (pl->blk[i].p == p) return &pl->blk[i];
    return NULL;
}

static void pool_free(void *p)
{
    if (!p) return;
    pool_block *b = pool_find(p);
    if (b) b->live = 0;
    else free(p);
}

static void *pool_calloc(size_t n, size_t size)
{
    if (size > 0 && n > (size_t)-1 / size) return NULL;
    void *p = pool_malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

static void *pool_realloc(void *p, size_t size)
{
    if (!p) return pool_malloc(size);
    pool_block *b = pool_find(p);
    if (!b) return realloc(p, size);
    size_t old = b->size;
    if (size <= old) return p; /* it fits where it is (a block's size is its capacity) */
    void *q = pool_malloc(size); /* may move the table: b is not used after this */
    if (!q) return NULL;
    memcpy(q, p, old);
    pool_free(p);
    return q;
}

static void install(void)
{
    SuiteSparse_config.malloc_func = pool_malloc;
    SuiteSparse_config.calloc_func = pool_calloc;
    SuiteSparse_config.realloc_func = pool_realloc;
    SuiteSparse_config.free_func = pool_free;
}

int newton_pool_enter(newton_pool **pool)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    if (!*pool) *pool = calloc(1, sizeof **pool);
    if (!*pool) return -1;
    current = *pool;
    return 0;
}

void newton_pool_leave(void) { current = NULL; }

long newton_pool_misses(const newton_pool *pool) { return pool ? pool->misses : 0; }

size_t newton_pool_bytes(const newton_pool *pool)
{
    size_t b = 0;
    for (size_t i = 0; pool && i < pool->n; i++) b += pool->blk[i].size;
    return b;
}

void newton_pool_destroy(newton_pool **pool)
{
    newton_pool *pl = *pool;
    if (!pl) return;
    for (size_t i = 0; i < pl->n; i++) free(pl->blk[i].p);
    free(pl->blk);
    free(pl);
    *pool = NULL;
}
