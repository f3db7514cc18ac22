#pragma once

#include "core/stats/tensorstats.h"

#include <QTest>

namespace stb::test {

// Two analyses of the same values (other threads, other kernels, code counts against decoded
// values) count and bound them identically. Call QTest::currentTestFailed() after it.
inline void compareCountsAndExtremes(const TensorStats &a, const TensorStats &b)
{
    QCOMPARE(a.count, b.count);
    QCOMPARE(a.nan, b.nan);
    QCOMPARE(a.posInf, b.posInf);
    QCOMPARE(a.negInf, b.negInf);
    QCOMPARE(a.zeros, b.zeros);
    QCOMPARE(a.finite, b.finite);
    QCOMPARE(a.min, b.min);
    QCOMPARE(a.max, b.max);
    QCOMPARE(a.absMax, b.absMax);
}

} // namespace stb::test
