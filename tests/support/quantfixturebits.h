#pragma once

// Helpers shared by the quantized-fixture writers (quantfixtures.cpp, quantfixturegroups.cpp).
#include "tests/support/quantfixtures.h"

#include <cstring>

namespace stb::test::fixture {

template<typename T> inline void put(std::vector<std::byte> &out, T value)
{
    std::byte b[sizeof(T)];
    std::memcpy(b, &value, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
}

inline std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b)
{
    return (a + b - 1) / b;
}

inline void addTensor(QuantFixture &f, std::string name, DType dtype, std::vector<std::uint64_t> shape,
    std::vector<std::byte> bytes)
{
    f.bytes += bytes.size();
    f.specs.push_back({ std::move(name), dtype, std::move(shape) });
    f.data.push_back(std::move(bytes));
}

inline QuantFixture start(std::string weight, std::vector<std::uint64_t> shape, std::uint32_t seed)
{
    QuantFixture f;
    f.weight = std::move(weight);
    f.shape = std::move(shape);
    std::uint64_t n = 1;
    for (auto d : f.shape)
        n *= d;
    f.original = knownWeights(n, seed);
    f.expected.resize(n);
    return f;
}

// 32-bit words as little-endian bytes.
inline std::vector<std::byte> words(const std::vector<std::uint32_t> &w)
{
    std::vector<std::byte> out;
    for (auto v : w)
        put(out, v);
    return out;
}

} // namespace stb::test::fixture
