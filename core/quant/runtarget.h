#pragma once

// The target macros of the dequantizing run files (dequantruns.cpp, dequantcountruns.cpp,
// dequantmomentruns.cpp): a body is a plain loop inlined into a portable wrapper and an AVX-512
// one (STB_AVX512), and for a few an AVX2 one (STB_AVX2, the portable family's), so each is compiled for its wrapper's target; STB_WIDE_RUNS says whether the
// AVX-512 wrappers exist (x86-64 with GCC or Clang). Include it after the standard headers.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_WIDE_RUNS 1
#define STB_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define STB_AVX2 __attribute__((target("avx2")))
#define STB_BODY [[gnu::always_inline]] inline
#else
#define STB_WIDE_RUNS 0
#define STB_AVX512
#define STB_AVX2
#define STB_BODY inline
#endif
