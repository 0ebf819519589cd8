/* Compile a region of a SIMD kernel file for a wider instruction set than the build's (the
 * runtime dispatch picks it only where the CPU has it): GCC's push_options/target pragmas,
 * or clang's attribute pragma (the fuzz build, `make fuzz`, uses clang), which applies the
 * same target to every function in the region. */
#ifndef PBD_SIMD_TARGET_H
#define PBD_SIMD_TARGET_H

#if defined(__clang__)
#define PBD_SIMD_TARGET_AVX2                                                                   \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
/* one string literal: _Pragma takes no concatenation */
#define PBD_SIMD_TARGET_AVX512                                                                 \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512vl,avx512dq,avx2,fma\"))), apply_to = function)")
#define PBD_SIMD_TARGET_END _Pragma("clang attribute pop")
#else
#define PBD_SIMD_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define PBD_SIMD_TARGET_AVX512                                                                 \
    _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512vl,avx512dq,avx2,fma\")")
#define PBD_SIMD_TARGET_END _Pragma("GCC pop_options")
#endif

#endif
