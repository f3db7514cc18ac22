// The heap on huge pages (core/io/hugepageheap.h): after the first call, small blocks allocated
// by any thread lie in heap advised MADV_HUGEPAGE; heap grown past the reserve is advised by the
// next call. What it is for (fewer page faults when a large checkpoint opens) is measured by
// bench_gui, not here.
#include "core/io/hugepageheap.h"
#include "tests/support/vmflags.h"

#include <QTest>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace stb;

namespace {

constexpr std::size_t kReserve = std::size_t(16) << 20;

// `bytes` in blocks the size of a tensor's name: returns them, the last one allocated last.
std::vector<std::unique_ptr<std::string>> smallBlocks(std::size_t bytes)
{
    std::vector<std::unique_ptr<std::string>> blocks;
    blocks.reserve(bytes / 48);
    for (std::size_t i = 0; i < bytes / 48; ++i)
        blocks.push_back(std::make_unique<std::string>(40, 'n'));
    return blocks;
}

} // namespace

class tst_HugePageHeap : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void smallBlocksOnAdvisedHeap();
    void otherThreadsShareIt();
    void growthAdvisedByTheNextCall();
};

void tst_HugePageHeap::initTestCase()
{
#if !defined(__linux__) || !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
    QSKIP("glibc's allocator on Linux only: elsewhere the call does nothing");
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    QSKIP("AddressSanitizer's allocator replaces glibc's: the call does nothing");
#endif
#endif
    if (!test::kernelHasHugePages())
        QSKIP("this kernel has no transparent huge pages");
    useHugePagesForTheHeap(kReserve);
}

void tst_HugePageHeap::smallBlocksOnAdvisedHeap()
{
    // The first megabytes may reuse free blocks of the heap from before the call; past them,
    // blocks come from the heap's top, which the call grew and advised.
    const auto blocks = smallBlocks(std::size_t(4) << 20);
    QVERIFY2(test::adviceRecordedForHugePages(blocks.back().get()), test::vmFlagsOf(blocks.back().get()).c_str());
    QVERIFY2(test::adviceRecordedForHugePages(blocks.back()->data()) || blocks.back()->size() < 16,
        test::vmFlagsOf(blocks.back()->data()).c_str());
}

void tst_HugePageHeap::otherThreadsShareIt()
{
    // The opening job runs on a pool thread: its blocks must not come from an arena of its own.
    std::string flags;
    std::thread([&] {
        const auto blocks = smallBlocks(std::size_t(2) << 20);
        flags = test::vmFlagsOf(blocks.back().get());
    }).join();
    QVERIFY2(flags.find(" hg") != std::string::npos, flags.c_str());
}

void tst_HugePageHeap::growthAdvisedByTheNextCall()
{
    // Use up the reserve and more: the heap grows past what the first call advised.
    const auto first = smallBlocks(2 * kReserve);
    useHugePagesForTheHeap(kReserve);
    const auto after = smallBlocks(std::size_t(4) << 20);
    QVERIFY2(test::adviceRecordedForHugePages(after.back().get()), test::vmFlagsOf(after.back().get()).c_str());
}

QTEST_GUILESS_MAIN(tst_HugePageHeap)
#include "tst_hugepageheap.moc"
