#include "core/text/naturalorder.h"

namespace stb {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

} // namespace

int naturalCompare(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    int tieBreak = 0; // leading zeros: "7" before "007", decided only if all else is equal
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            const std::size_t startA = i, startB = j;
            while (i < a.size() && a[i] == '0')
                ++i;
            while (j < b.size() && b[j] == '0')
                ++j;
            const std::size_t digitsA = i, digitsB = j;
            while (i < a.size() && isDigit(a[i]))
                ++i;
            while (j < b.size() && isDigit(b[j]))
                ++j;
            // Numbers of any length: more significant digits is larger, else compare digit by digit.
            const std::size_t lengthA = i - digitsA, lengthB = j - digitsB;
            if (lengthA != lengthB)
                return lengthA < lengthB ? -1 : 1;
            if (const int c = a.substr(digitsA, lengthA).compare(b.substr(digitsB, lengthB)))
                return c < 0 ? -1 : 1;
            if (!tieBreak && i - startA != j - startB)
                tieBreak = i - startA < j - startB ? -1 : 1;
            continue;
        }
        const auto ca = static_cast<unsigned char>(a[i]), cb = static_cast<unsigned char>(b[j]);
        if (ca != cb)
            return ca < cb ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size())
        return 1;
    if (j < b.size())
        return -1;
    return tieBreak;
}

} // namespace stb
