#include "core/format/decodebatch.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

namespace stb {

namespace {

template<typename T>
void loadAll(const std::byte *p, std::uint64_t n, double *out)
{
    for (std::uint64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, p + i * sizeof(T), sizeof(T));
        out[i] = static_cast<double>(v);
    }
}

// decodeCode for every code of a small dtype, computed once per dtype (thread-safe statics).
const std::vector<double> &codeTable(DType dtype)
{
    static std::array<std::unique_ptr<const std::vector<double>>, kDTypeCount> tables = [] {
        std::array<std::unique_ptr<const std::vector<double>>, kDTypeCount> all;
        for (const auto &info : allDTypes()) {
            if (info.bits > 16 || info.dtype == DType::C64)
                continue;
            auto table = std::make_unique<std::vector<double>>(std::size_t(1) << info.bits);
            for (std::size_t c = 0; c < table->size(); ++c)
                (*table)[c] = decodeCode(info.dtype, c);
            all[static_cast<std::size_t>(info.dtype)] = std::move(table);
        }
        return all;
    }();
    return *tables[static_cast<std::size_t>(dtype)];
}

} // namespace

void decodeBatch(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, double *out,
                 double *imaginary)
{
    if (imaginary && dtype != DType::C64)
        std::fill(imaginary, imaginary + n, 0.0);
    switch (dtype) {
    case DType::F32: return loadAll<float>(data + first * 4, n, out);
    case DType::F64: return loadAll<double>(data + first * 8, n, out);
    case DType::I32: return loadAll<std::int32_t>(data + first * 4, n, out);
    case DType::U32: return loadAll<std::uint32_t>(data + first * 4, n, out);
    case DType::I64: return loadAll<std::int64_t>(data + first * 8, n, out);
    case DType::U64: return loadAll<std::uint64_t>(data + first * 8, n, out);
    case DType::BF16: {
        const std::byte *p = data + first * 2;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint16_t half;
            std::memcpy(&half, p + 2 * i, 2);
            const std::uint32_t bits = std::uint32_t(half) << 16;
            float f;
            std::memcpy(&f, &bits, 4);
            out[i] = f;
        }
        return;
    }
    case DType::C64: {
        const std::byte *p = data + first * 8;
        for (std::uint64_t i = 0; i < n; ++i) {
            float parts[2];
            std::memcpy(parts, p + 8 * i, 8);
            out[i] = parts[0];
            if (imaginary)
                imaginary[i] = parts[1];
        }
        return;
    }
    default:
        break;
    }
    const std::vector<double> &table = codeTable(dtype);
    const unsigned bits = dtypeBits(dtype);
    if (bits == 8) {
        const auto *p = reinterpret_cast<const unsigned char *>(data) + first;
        for (std::uint64_t i = 0; i < n; ++i)
            out[i] = table[p[i]];
    } else if (bits == 16) {
        const std::byte *p = data + first * 2;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint16_t code;
            std::memcpy(&code, p + 2 * i, 2);
            out[i] = table[code];
        }
    } else {
        const std::span<const std::byte> bytes(data, static_cast<std::size_t>(((first + n) * bits + 7) / 8));
        for (std::uint64_t i = 0; i < n; ++i)
            out[i] = table[elementCode(dtype, bytes, first + i)];
    }
}

} // namespace stb
