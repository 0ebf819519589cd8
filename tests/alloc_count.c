/* Counting the process's heap allocations (tests/alloc_count.h): malloc, calloc, realloc,
 * posix_memalign, aligned_alloc and memalign of this test executable and every library it
 * loads (SuiteSparse, OpenBLAS, libgomp, GSL, HDF5) while counting is on, with those whose
 * caller is in libgomp (or the loader, for the TLS of the threads it starts) or OpenBLAS
 * also counted apart (dladdr of the return address).
 *
 * Without AddressSanitizer the executable defines those functions itself, which the dynamic
 * loader then binds every library's calls to, and forwards them to glibc's own entry points
 * (__libc_malloc & co.). Under AddressSanitizer, whose runtime defines them, its allocation
 * hook counts instead (__sanitizer_install_malloc_and_free_hooks), without telling the
 * callers apart. */
#define _GNU_SOURCE
#include "tests/alloc_count.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static atomic_int counting;
static atomic_long count, count_openmp, count_openblas;

/* Count one allocation made by code at `caller` (NULL: unknown), by its library. */
static void note(const void *caller)
{
    if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    Dl_info di;
    if (!caller || !dladdr(caller, &di) || !di.dli_fname) return;
    /* libgomp, and the loader for the threads libgomp starts (their TLS) */
    if (strstr(di.dli_fname, "libgomp") || strstr(di.dli_fname, "ld-linux"))
        atomic_fetch_add_explicit(&count_openmp, 1, memory_order_relaxed);
    if (strstr(di.dli_fname, "openblas")) atomic_fetch_add_explicit(&count_openblas, 1, memory_order_relaxed);
}
#define NOTE() note(__builtin_return_address(0))

static void reset(void)
{
    atomic_store(&count, 0);
    atomic_store(&count_openmp, 0);
    atomic_store(&count_openblas, 0);
    atomic_store(&counting, 1);
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's runtime (its sanitizer/allocator_interface.h is not installed with
 * Debian's gcc): the hook it calls on every allocation, 1 when installed. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void on_malloc(const volatile void *p, size_t size)
{
    (void)p;
    (void)size;
    note(NULL);
}

static void on_free(const volatile void *p) { (void)p; }

void alloc_count_start(void)
{
    static int installed;
    if (!installed) installed = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
    reset();
}
static const int by_caller = 0;
#else
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *p);

void *malloc(size_t size)
{
    NOTE();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    NOTE();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    NOTE();
    return __libc_realloc(p, size);
}

void free(void *p) { __libc_free(p); }

void *memalign(size_t alignment, size_t size)
{
    NOTE();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    NOTE();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    NOTE();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return 22; /* EINVAL */
    void *p = __libc_memalign(alignment, size);
    if (!p && size > 0) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void alloc_count_start(void) { reset(); }
static const int by_caller = 1;
#endif

alloc_counts alloc_count_stop(void)
{
    atomic_store(&counting, 0);
    return (alloc_counts){atomic_load(&count), atomic_load(&count_openmp),
                          atomic_load(&count_openblas), by_caller};
}
