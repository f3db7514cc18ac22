// MappedFile and the SIGBUS guard: sizes beyond 4 GiB, tiny and empty files, unreadable paths,
// and a file truncated while mapped.
#include "core/format/prefault.h"
#include "core/io/busguard.h"
#include "core/io/headerbytes.h"
#include "core/io/mappedfile.h"
#include "core/io/safetensorsfile.h"
#include "tests/support/testfiles.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace stb;

class tst_MappedFile : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }

    void smallFiles_data()
    {
        QTest::addColumn<int>("size");
        QTest::newRow("empty") << 0;
        QTest::newRow("one byte") << 1;
        QTest::newRow("seven bytes") << 7;
        QTest::newRow("eight bytes") << 8;
    }
    void smallFiles()
    {
        QFETCH(int, size);
        const std::string path = file("small");
        QVERIFY(test::writeBytes(path, std::vector<std::byte>(static_cast<std::size_t>(size), std::byte{0})));
        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY2(mapped, error.c_str());
        QCOMPARE(mapped->size(), static_cast<std::uint64_t>(size));
        QCOMPARE(mapped->bytes().size(), static_cast<std::size_t>(size));
        QVERIFY(mapped->slice(100, 10).empty());

        const auto parsed = SafetensorsFile::open(path, error);
        QVERIFY(parsed);
        QVERIFY(!parsed->header().valid());
        QCOMPARE(parsed->header().verdict()->rule, size < 8 ? Rule::HeaderTooSmall : Rule::HeaderJson);
    }

    void unreadablePaths_data()
    {
        QTest::addColumn<QString>("which");
        QTest::newRow("missing") << u"missing"_s;
        QTest::newRow("directory") << u"directory"_s;
        QTest::newRow("fifo") << u"fifo"_s; // must be refused at once, not block waiting for a writer
    }
    void unreadablePaths()
    {
        QFETCH(QString, which);
        std::string path = which == u"directory"_s ? m_dir.path().toStdString() : file("does-not-exist");
        if (which == u"fifo"_s) {
            path = file("fifo");
            QCOMPARE(::mkfifo(path.c_str(), 0644), 0);
        }
        std::string error;
        QVERIFY(!MappedFile::open(path, error));
        QVERIFY(!error.empty());
        QVERIFY(!SafetensorsFile::open(path, error));
    }

    // A sparse file over 4 GiB: sizes and slices are 64-bit, nothing is read but what is asked.
    void beyondFourGiB()
    {
        const std::string path = file("sparse");
        const std::uint64_t size = (5ull << 30) + 123;
        const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::ftruncate(fd, static_cast<off_t>(size)), 0);
        const char marker = 'Z';
        QCOMPARE(::pwrite(fd, &marker, 1, static_cast<off_t>(size - 1)), 1);
        ::close(fd);

        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY2(mapped, error.c_str());
        QCOMPARE(mapped->size(), size);
        const auto tail = mapped->slice(size - 1, 100);
        QCOMPARE(tail.size(), std::size_t(1));
        QCOMPARE(static_cast<char>(tail[0]), 'Z');
        const auto middle = mapped->slice(4ull << 30, 16);
        QCOMPARE(middle.size(), std::size_t(16));
        QCOMPARE(std::to_integer<int>(middle[3]), 0);
    }

    // Truncating a mapped file makes its pages vanish; a guarded read reports it, no SIGBUS.
    void truncatedWhileMapped()
    {
        const std::string path = file("shrinking");
        QVERIFY(test::writeBytes(path, std::vector<std::byte>(3 * 4096, std::byte{7})));
        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY(mapped);
        std::vector<std::byte> out(4096);
        QVERIFY(guardedCopy(out, mapped->slice(8192, 4096)));
        QCOMPARE(std::to_integer<int>(out[0]), 7);

        QCOMPARE(::truncate(path.c_str(), 0), 0);
        QVERIFY(!guardedCopy(out, mapped->slice(8192, 4096)));
        QCOMPARE(mapped->currentSizeOnDisk(), 0);
        // The guard is re-armed after a fault: a second failing read also returns.
        QVERIFY(!guardedCopy(out, mapped->slice(4096, 4096)));
    }

    // A header is parsed in place from the mapping: a file truncated after it was mapped reads
    // zeros where its pages vanished, the parser runs to its end (it owns memory: it must not be
    // abandoned midway) and the open is refused with a reason. Faults outside the region keep
    // the ordinary guard.
    void headerReadInPlaceFromATruncatedFile()
    {
        const std::string path = file("header-in-place");
        const std::size_t headerLength = 10 * 4096 + 100; // no zero byte but the length's high ones
        std::vector<std::byte> bytes(8 + headerLength + 4096, std::byte{'x'});
        for (int i = 0; i < 8; ++i)
            bytes[static_cast<std::size_t>(i)] = std::byte((headerLength >> (8 * i)) & 0xff);
        QVERIFY(test::writeBytes(path, bytes));
        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY(mapped);

        std::size_t seen = 0, zeros = 0;
        const auto count = [&](std::span<const std::byte> header) {
            seen = header.size();
            zeros = static_cast<std::size_t>(std::count(header.begin(), header.end(), std::byte{0}));
        };
        QVERIFY(parseHeaderInPlace(*mapped, error, count));
        QCOMPARE(seen, 8 + headerLength);
        QCOMPARE(zeros, std::size_t(6)); // the length's high bytes

        QCOMPARE(::truncate(path.c_str(), 3 * 4096), 0);
        error.clear();
        QVERIFY(!parseHeaderInPlace(*mapped, error, count));
        QCOMPARE(QString::fromStdString(error), QStringLiteral("the file changed on disk while it was being read"));
        QCOMPARE(seen, 8 + headerLength);
        QCOMPARE(zeros, 6 + (seen - 3 * 4096)); // what vanished reads as zeros
        // The pages zeroed stay zeros in this mapping; past them, a vanished page is the
        // ordinary guard's again.
        std::vector<std::byte> out(4096, std::byte{1});
        QVERIFY(guardedCopy(out, mapped->slice(8 * 4096, 4096)));
        QCOMPARE(std::count(out.begin(), out.end(), std::byte{0}), 4096);
        QVERIFY(!guardedCopy(out, mapped->slice(11 * 4096, 4096)));
        // And a file that opens fine still does.
        const std::string whole = file("header-whole");
        QVERIFY(test::writeBytes(whole, bytes));
        QVERIFY(MappedFile::open(whole, error));
    }

    // Populating the page tables ahead of a scan (prefaultForReading) over bytes that a
    // truncation took away fails quietly, with no SIGBUS: the scan then meets the guard, which
    // reports it as before. Before the truncation the populated bytes read as they are.
    void prefaultPastTheEnd()
    {
        const std::string path = file("prefaulted");
        std::vector<std::byte> bytes(64 * 4096);
        for (std::size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = std::byte(i * 7 + i / 4096);
        QVERIFY(test::writeBytes(path, bytes));
        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY(mapped);
        prefaultForReading(mapped->bytes().data() + 100, bytes.size() - 200); // not page-aligned
        QVERIFY(std::equal(bytes.begin(), bytes.end(), mapped->bytes().begin()));

        QCOMPARE(::truncate(path.c_str(), 16 * 4096), 0);
        prefaultForReading(mapped->bytes().data() + 8 * 4096, 40 * 4096); // straddles the new end
        prefaultForReading(mapped->bytes().data() + 32 * 4096, 32 * 4096); // wholly past it
        std::vector<std::byte> out(4096);
        QVERIFY(guardedCopy(out, mapped->slice(15 * 4096, 4096)));
        QVERIFY(std::equal(out.begin(), out.end(), bytes.begin() + 15 * 4096));
        QVERIFY(!guardedCopy(out, mapped->slice(40 * 4096, 4096)));
    }

    // A scan gives back only the pages it brought into the page cache: a file that was cached
    // before stays cached (so a second audit reads memory, not the disk); without a snapshot
    // every page of the range goes, as before.
    void releaseKeepsWhatWasCached()
    {
        const std::string path = file("cached");
        const std::size_t pages = 64;
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        QVERIFY(test::writeBytes(path, std::vector<std::byte>(pages * page, std::byte{3})));
        const int fd = ::open(path.c_str(), O_RDONLY);
        QVERIFY(fd >= 0);
        QCOMPARE(::fsync(fd), 0); // clean pages: only those can be dropped
        ::close(fd);
        std::string error;
        const auto mapped = MappedFile::open(path, error);
        QVERIFY(mapped);
        auto residentCount = [&] {
            const auto resident = mapped->residentPages(0, mapped->size());
            return std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; });
        };
        std::vector<std::byte> sink(pages * page);
        QVERIFY(guardedCopy(sink, mapped->bytes())); // every page cached now
        const auto before = mapped->residentPages(0, mapped->size());
        QCOMPARE(before.size(), pages);
        QCOMPARE(residentCount(), std::ptrdiff_t(pages));

        mapped->releaseScanned(0, mapped->size(), before);
        QCOMPARE(residentCount(), std::ptrdiff_t(pages));

        // The snapshot of a range starting mid-page is indexed from that page.
        const auto partial = mapped->residentPages(page + 100, 10 * page);
        QCOMPARE(partial.size(), std::size_t(11));

        mapped->releaseScanned(0, mapped->size());
        if (residentCount() == std::ptrdiff_t(pages))
            QSKIP("this file system keeps pages cached after POSIX_FADV_DONTNEED");
        QCOMPARE(residentCount(), std::ptrdiff_t(0));

        // Half of it cached again (read without read-ahead): the snapshot tells the pages apart
        // (where the whole range is cached it is taken in one cachestat, otherwise page by page).
        const int again = ::open(path.c_str(), O_RDONLY);
        QVERIFY(again >= 0);
        QCOMPARE(::posix_fadvise(again, 0, 0, POSIX_FADV_RANDOM), 0);
        std::vector<std::byte> half(pages / 2 * page);
        QCOMPARE(::pread(again, half.data(), half.size(), 0), static_cast<ssize_t>(half.size()));
        ::close(again);
        const auto resident = mapped->residentPages(0, mapped->size());
        QCOMPARE(resident.size(), pages);
        for (std::size_t k = 0; k < pages; ++k)
            QVERIFY2(bool(resident[k] & 1) == (k < pages / 2), qPrintable(QStringLiteral("page %1").arg(k)));
        QCOMPARE(mapped->residentPages(0, half.size()), std::vector<unsigned char>(pages / 2, 1));
    }

private:
    std::string file(const char *name) const { return (m_dir.path() + u'/' + QString::fromLatin1(name)).toStdString(); }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(tst_MappedFile)
#include "tst_mappedfile.moc"
