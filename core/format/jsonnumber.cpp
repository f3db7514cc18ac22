#include "core/format/jsonnumber.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace stb {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Powers of ten as Rust's float literals give them (correctly rounded).
const double *powersOfTen()
{
    static const auto table = [] {
        std::array<double, 309> powers {};
        for (int i = 0; i <= 308; ++i) {
            const std::string text = "1e" + std::to_string(i);
            std::from_chars(text.data(), text.data() + text.size(), powers[static_cast<std::size_t>(i)]);
        }
        return powers;
    }();
    return table.data();
}

// serde_json (without its float_roundtrip feature, as the reference builds it) rejects a number
// whose value it computes as infinite, and accepts underflow to 0. It does not round correctly:
// it keeps the first digits that fit a u64 as the significand (later integer digits only raise
// the exponent, later fraction digits are dropped), converts that to a double and multiplies or
// divides by a power of ten from a table. Near DBL_MAX this differs from a correctly rounded
// parse in both directions (1.7976931348623158e308 fails, 179769313486231599e291 passes), so the
// verdict must be computed its way, step for step (serde_json de.rs: parse_integer,
// parse_long_integer, parse_decimal, parse_decimal_overflow, parse_exponent,
// parse_exponent_overflow, f64_from_parts). `token` is grammatically valid.
} // namespace

bool serdeNumberOverflows(std::string_view token)
{
    std::size_t i = token[0] == '-' ? 1 : 0;
    std::uint64_t significand = 0;
    std::int64_t exponent = 0;
    auto absorbs = [&](char c) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (significand > (UINT64_MAX - digit) / 10)
            return false;
        significand = significand * 10 + digit;
        return true;
    };
    bool integerFull = false;
    for (; i < token.size() && isDigit(token[i]); ++i) {
        if (integerFull || !absorbs(token[i])) {
            integerFull = true; // parse_long_integer: each further digit is a power of ten
            ++exponent;
        }
    }
    if (i < token.size() && token[i] == '.') {
        for (++i; i < token.size() && isDigit(token[i]); ++i) {
            if (!absorbs(token[i])) {
                while (i < token.size() && isDigit(token[i])) // parse_decimal_overflow
                    ++i;
                break;
            }
            --exponent;
        }
    }
    if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
        ++i;
        bool positive = true;
        if (token[i] == '+' || token[i] == '-')
            positive = token[i++] == '+';
        std::int64_t value = 0;
        for (; i < token.size(); ++i) {
            value = value * 10 + (token[i] - '0');
            if (value > INT32_MAX) // parse_exponent_overflow: infinity is an error, zero is not
                return significand != 0 && positive;
        }
        exponent
            = std::clamp<std::int64_t>(positive ? exponent + value : exponent - value, INT32_MIN, INT32_MAX);
    }
    const double *pow10 = powersOfTen();
    double f = static_cast<double>(significand);
    while (true) {
        const std::uint64_t magnitude
            = exponent < 0 ? static_cast<std::uint64_t>(-exponent) : static_cast<std::uint64_t>(exponent);
        if (magnitude <= 308) {
            if (exponent < 0)
                return false; // f / 10^k is finite
            f *= pow10[magnitude];
            return std::isinf(f);
        }
        if (f == 0.0)
            return false;
        if (exponent >= 0)
            return true;
        f /= 1e308;
        exponent += 308;
    }
}

} // namespace stb
