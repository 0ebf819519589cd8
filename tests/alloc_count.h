/* Counting heap allocations in the test executable (tests/alloc_count.c). */
#ifndef PBD_ALLOC_COUNT_H
#define PBD_ALLOC_COUNT_H

/* What alloc_count_stop found, by the library whose code called the allocator. */
typedef struct alloc_counts {
    long total;
    long openmp;   /* libgomp's own bookkeeping (its teams of threads, their threads' TLS) */
    long openblas; /* OpenBLAS's own buffers */
    int by_caller; /* 0: the callers could not be told apart (AddressSanitizer's hook) */
} alloc_counts;

/* Start counting every allocation of the process (any thread, any library) from zero. */
void alloc_count_start(void);
/* Stop; what was counted since alloc_count_start. */
alloc_counts alloc_count_stop(void);

#endif
