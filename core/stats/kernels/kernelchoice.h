#pragma once

// Which family of statistics kernels runs: the AVX-512 ones where the CPU has them, else the
// portable ones (kernels/portable.h, scalar.h). The environment variable STB_KERNELS forces a
// family, so that both can be measured and compared on one AVX-512 machine:
//   STB_KERNELS=portable   the portable kernels, whatever the CPU
//   STB_KERNELS=avx512     the AVX-512 kernels (the portable ones, with a message, without them)
//   STB_KERNELS=auto       (or unset, or empty) the best the CPU has
// An unknown value gets a message on stderr and means auto.
#include <string>

namespace stb::kernels {

enum class KernelRequest { Auto, Portable, Avx512 };

struct KernelRequestParse {
    KernelRequest request = KernelRequest::Auto;
    std::string warning; // empty when the value was understood
};

// STB_KERNELS' value (null: unset) as a request. Pure: reads no environment, prints nothing.
KernelRequestParse parseKernelRequest(const char *value);

// Whether the AVX-512 kernels start enabled: STB_KERNELS read once, its message (if any) printed
// once on stderr. `supported`: the CPU has what the AVX-512 kernels need.
bool avx512WantedAtStart(bool supported);

// The family running now, as a stable id: "avx512" or "portable". Benchmarks print it, so a
// number says which kernels produced it.
const char *activeKernelName();

} // namespace stb::kernels
