// Large buffers (core/io/largealloc.h): small requests from operator new, large ones straight
// from the kernel, aligned to a huge page and advised for huge pages (the mapping's VmFlags in
// /proc/self/smaps carry "hg"); vectors over LargeAllocator keep their contents through growth.
#include "core/io/largealloc.h"
#include "tests/support/vmflags.h"

#include <QTest>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace stb;


class tst_LargeAlloc : public QObject {
    Q_OBJECT

private slots:
    void sizes_data();
    void sizes();
    void vectorGrowsAndKeepsValues();
};

void tst_LargeAlloc::sizes_data()
{
    QTest::addColumn<quint64>("bytes");
    QTest::addRow("small") << quint64(4096);
    QTest::addRow("just below large") << quint64(kLargeAllocation - 8);
    QTest::addRow("large, whole huge pages") << quint64(4 * kHugePage);
    QTest::addRow("large, odd size") << quint64(3 * kHugePage + 12345);
}

void tst_LargeAlloc::sizes()
{
    QFETCH(quint64, bytes);
    auto *p = static_cast<unsigned char *>(allocateLarge(bytes));
    QVERIFY(p);
    for (std::size_t i = 0; i < bytes; i += 997)
        p[i] = static_cast<unsigned char>(i);
    p[bytes - 1] = 0xAB;
    for (std::size_t i = 0; i < bytes; i += 997)
        QCOMPARE(p[i], static_cast<unsigned char>(i));
    QCOMPARE(p[bytes - 1], 0xAB);
    if (bytes >= kLargeAllocation) {
        QCOMPARE(reinterpret_cast<std::uintptr_t>(p) % kHugePage, std::uintptr_t(0));
        // MADV_HUGEPAGE taken, where the kernel has transparent huge pages at all (the advice is
        // recorded whatever their mode; a kernel built without them refuses it).
        if (test::kernelHasHugePages()) {
            const std::string flags = test::vmFlagsOf(p);
            QVERIFY2(flags.find(" hg") != std::string::npos, flags.c_str());
        }
    }
    releaseLarge(p, bytes);
}

void tst_LargeAlloc::vectorGrowsAndKeepsValues()
{
    std::vector<double, LargeAllocator<double>> values;
    values.resize(1000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = double(i);
    values.resize(3 * kHugePage / sizeof(double)); // from operator new to the kernel
    for (std::size_t i = 0; i < 1000; ++i)
        QCOMPARE(values[i], double(i));
    values.assign(values.size(), 0.5); // value construction still writes
    QCOMPARE(values.back(), 0.5);
    const auto copy = values;
    QCOMPARE(copy.size(), values.size());
    QCOMPARE(copy[12345], 0.5);
    values.clear();
    values.shrink_to_fit();
    QCOMPARE(values.capacity(), std::size_t(0));
}

QTEST_APPLESS_MAIN(tst_LargeAlloc)
#include "tst_largealloc.moc"
