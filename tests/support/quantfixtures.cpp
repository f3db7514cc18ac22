#include "tests/support/quantfixtures.h"
#include "tests/support/quantfixturebits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace stb::test {

using namespace fixture;

namespace {

// F8_E4M3 (fn): bias 7, no infinities, S.1111.111 is NaN; max 448.
float e4m3Value(std::uint8_t code)
{
    const int e = (code >> 3) & 15, m = code & 7;
    float v = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1.0f + m / 8.0f, e - 7);
    if (e == 15 && m == 7)
        v = NAN;
    return (code & 0x80) ? -v : v;
}

// Nearest E4M3 code, ties to the even code (as a float8 cast rounds).
std::uint8_t e4m3Code(float x)
{
    const float a = std::min(std::fabs(x), 448.0f);
    std::uint8_t best = 0;
    for (std::uint8_t c = 1; c < 127; ++c) {
        const float d = std::fabs(e4m3Value(c) - a), bd = std::fabs(e4m3Value(best) - a);
        if (d < bd || (d == bd && (c & 1) == 0))
            best = c;
    }
    return static_cast<std::uint8_t>(best | (std::signbit(x) ? 0x80 : 0));
}

constexpr float kE2m1[16] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6 };
constexpr float kNf4[16] = { -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
    -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f,
    0.16093020141124725f, 0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f,
    0.5626170039176941f, 0.7229568362236023f, 1.0f };
const float kFp4[16] = { 0, 0.0625f / 12, 8 / 12.0f, 1, 4 / 12.0f, 6 / 12.0f, 2 / 12.0f, 3 / 12.0f, -0.0f,
    -0.0625f / 12, -8 / 12.0f, -1, -4 / 12.0f, -6 / 12.0f, -2 / 12.0f, -3 / 12.0f };

std::uint8_t nearestIn(const float *table, int size, float x)
{
    int best = 0;
    for (int k = 1; k < size; ++k) {
        if (std::fabs(table[k] - x) < std::fabs(table[best] - x))
            best = k;
    }
    return static_cast<std::uint8_t>(best);
}

} // namespace

std::uint16_t halfBits(float value)
{
    std::uint32_t x;
    std::memcpy(&x, &value, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000;
    const float a = std::fabs(value);
    if (std::isnan(value))
        return static_cast<std::uint16_t>(sign | 0x7e00);
    if (a >= 65520.0f)
        return static_cast<std::uint16_t>(sign | 0x7c00);
    if (a < std::ldexp(1.0f, -14)) { // subnormal: multiples of 2^-24, nearest even
        const float q = std::nearbyint(std::ldexp(a, 24));
        return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(q));
    }
    std::uint32_t bits;
    std::memcpy(&bits, &a, 4);
    const std::uint32_t rounded = bits + 0xFFF + ((bits >> 13) & 1);
    return static_cast<std::uint16_t>(sign | (((rounded >> 23) - 112) << 10) | ((rounded >> 13) & 0x3FF));
}

float halfValue(std::uint16_t h)
{
    const int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
        : e == 31    ? (m ? NAN : INFINITY)
                     : std::ldexp(1.0f + m / 1024.0f, e - 15);
    return (h & 0x8000) ? -v : v;
}

std::uint16_t bf16Bits(float value)
{
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return static_cast<std::uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

float bf16Value(std::uint16_t bits)
{
    const std::uint32_t x = static_cast<std::uint32_t>(bits) << 16;
    float v;
    std::memcpy(&v, &x, 4);
    return v;
}

std::vector<float> knownWeights(std::uint64_t count, std::uint32_t seed, float sigma)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<float> w(count);
    for (std::uint64_t i = 0; i < count; ++i)
        w[i] = normal(rng) * (i % 997 == 5 ? 8.0f : 1.0f);
    return w;
}

QuantFixture fp8Block(const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t block,
    const std::string &scaleName)
{
    QuantFixture f = start(base + ".weight", { out, in }, 11);
    const std::uint64_t br = ceilDiv(out, block), bc = ceilDiv(in, block);
    std::vector<std::byte> codes(out * in), scales;
    for (std::uint64_t i = 0; i < br; ++i) {
        for (std::uint64_t j = 0; j < bc; ++j) {
            float amax = 0;
            for (std::uint64_t r = i * block; r < std::min(out, (i + 1) * block); ++r)
                for (std::uint64_t c = j * block; c < std::min(in, (j + 1) * block); ++c)
                    amax = std::max(amax, std::fabs(f.original[r * in + c]));
            const float scale = amax > 0 ? amax / 448.0f : 1.0f;
            put(scales, scale);
            for (std::uint64_t r = i * block; r < std::min(out, (i + 1) * block); ++r) {
                for (std::uint64_t c = j * block; c < std::min(in, (j + 1) * block); ++c) {
                    const std::uint8_t q = e4m3Code(f.original[r * in + c] / scale);
                    codes[r * in + c] = static_cast<std::byte>(q);
                    f.expected[r * in + c] = e4m3Value(q) * scale;
                }
            }
        }
    }
    addTensor(f, base + ".weight", DType::F8_E4M3, { out, in }, std::move(codes));
    addTensor(f, base + "." + scaleName, DType::F32, { br, bc }, std::move(scales));
    return f;
}

QuantFixture fp8Scaled(const std::string &base, std::uint64_t out, std::uint64_t in, bool perChannel)
{
    QuantFixture f = start(base + ".weight", { out, in }, 12);
    std::vector<std::byte> codes(out * in), scales, input;
    float tensorMax = 0;
    for (float v : f.original)
        tensorMax = std::max(tensorMax, std::fabs(v));
    for (std::uint64_t r = 0; r < out; ++r) {
        float amax = tensorMax;
        if (perChannel) {
            amax = 0;
            for (std::uint64_t c = 0; c < in; ++c)
                amax = std::max(amax, std::fabs(f.original[r * in + c]));
        }
        const float scale = amax > 0 ? amax / 448.0f : 1.0f;
        if (perChannel || r == 0)
            put(scales, scale);
        for (std::uint64_t c = 0; c < in; ++c) {
            const std::uint8_t q = e4m3Code(f.original[r * in + c] / scale);
            codes[r * in + c] = static_cast<std::byte>(q);
            f.expected[r * in + c] = e4m3Value(q) * scale;
        }
    }
    put(input, 0.05f);
    addTensor(f, base + ".weight", DType::F8_E4M3, { out, in }, std::move(codes));
    addTensor(f, base + ".weight_scale", DType::F32,
        perChannel ? std::vector<std::uint64_t> { out, 1 } : std::vector<std::uint64_t> { 1 },
        std::move(scales));
    addTensor(f, base + ".input_scale", DType::F32, { 1 }, std::move(input));
    return f;
}

QuantFixture mxfp4(const std::string &base, std::uint64_t rows, std::uint64_t groups)
{
    QuantFixture f = start(base, { rows, groups * 32 }, 13);
    std::vector<std::byte> blocks(rows * groups * 16), scales(rows * groups);
    for (std::uint64_t b = 0; b < rows * groups; ++b) {
        float amax = 0;
        for (int k = 0; k < 32; ++k)
            amax = std::max(amax, std::fabs(f.original[b * 32 + k]));
        const int e = amax > 0 ? std::clamp(static_cast<int>(std::floor(std::log2(amax))) - 2, -127, 127) : 0;
        scales[b] = static_cast<std::byte>(e + 127);
        for (int k = 0; k < 32; ++k) {
            const std::uint8_t q = nearestIn(kE2m1, 16, std::ldexp(f.original[b * 32 + k], -e));
            f.expected[b * 32 + k] = std::ldexp(kE2m1[q], e);
            auto &byte = blocks[b * 16 + k / 2];
            byte |= static_cast<std::byte>(k % 2 ? q << 4 : q); // low nibble first
        }
    }
    addTensor(f, base + "_blocks", DType::U8, { rows, groups, 16 }, std::move(blocks));
    addTensor(f, base + "_scales", DType::U8, { rows, groups }, std::move(scales));
    return f;
}

} // namespace stb::test
