// The statistics' kernels by dtype: each pass goes to the AVX-512 passes (kernels/avx512passes.h),
// the portable F32 kernels (kernels/portable.h) or the scalar ones (kernels/scalar.h). Planning
// is in kernels/plan.cpp, code counting in kernels/codecounter.cpp.
#include "core/stats/statskernels.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/avx512passes.h"
#include "core/stats/kernels/portable.h"
#include "core/stats/kernels/scalar.h"

namespace stb::kernels {

void scanValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges)
{
    switch (dtype) {
    case DType::F32:
        if (avx512::enabled())
            return scanAvx512(dtype, data, first, n, acc, ranges);
        return scanF32(data, first, n, acc, ranges);
    case DType::BF16:
        if (avx512::enabled())
            return scanAvx512(dtype, data, first, n, acc, ranges);
        return scanBF16(data, first, n, acc, ranges);
    case DType::F16:
        if (avx512::enabled())
            return scanAvx512(dtype, data, first, n, acc, ranges);
        return scanF16(data, first, n, acc, ranges);
    case DType::F64:
        return scan<LoadF64>(data, first, n, acc);
    case DType::I32:
        return scan<LoadI32>(data, first, n, acc);
    case DType::U32:
        return scan<LoadU32>(data, first, n, acc);
    case DType::I64:
        return scan<LoadI64>(data, first, n, acc);
    case DType::U64:
        return scan<LoadU64>(data, first, n, acc);
    case DType::C64:
        return scan<LoadC64>(data, first, n, acc);
    default:
        return;
    }
}

void binValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    switch (dtype) {
    case DType::F32:
        if (plan.avx512 != BinPlan::Avx512::No)
            return binAvx512(dtype, data, first, n, plan, bins, outliers, ranges);
        if (binF32(data, first, n, plan, bins, outliers, ranges))
            return;
        if (plan.indexed)
            return binF32ByIndex(data, first, n, plan, bins, outliers);
        return bin<LoadF32>(data, first, n, plan, bins, outliers);
    case DType::BF16:
        if (plan.avx512 != BinPlan::Avx512::No)
            return binAvx512(dtype, data, first, n, plan, bins, outliers, ranges);
        if (binBF16(data, first, n, plan, bins, outliers, ranges))
            return;
        return bin<LoadBF16>(data, first, n, plan, bins, outliers);
    case DType::F16:
        if (plan.avx512 != BinPlan::Avx512::No)
            return binAvx512(dtype, data, first, n, plan, bins, outliers, ranges);
        if (binF16(data, first, n, plan, bins, outliers, ranges))
            return;
        return bin<LoadF16>(data, first, n, plan, bins, outliers);
    case DType::F64:
        return bin<LoadF64>(data, first, n, plan, bins, outliers);
    case DType::I32:
        return bin<LoadI32>(data, first, n, plan, bins, outliers);
    case DType::U32:
        return bin<LoadU32>(data, first, n, plan, bins, outliers);
    case DType::I64:
        return bin<LoadI64>(data, first, n, plan, bins, outliers);
    case DType::U64:
        return bin<LoadU64>(data, first, n, plan, bins, outliers);
    case DType::C64:
        return bin<LoadC64>(data, first, n, plan, bins, outliers);
    default:
        return;
    }
}

double statValue(DType dtype, const std::byte *data, std::uint64_t index)
{
    if (dtype == DType::C64)
        return LoadC64::get(data + index * 8);
    const unsigned bits = dtypeBits(dtype);
    const std::span<const std::byte> bytes(data, static_cast<std::size_t>(((index + 1) * bits + 7) / 8));
    return decodeElement(dtype, bytes, index);
}

} // namespace stb::kernels
