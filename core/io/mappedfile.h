#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace stb {

// A whole file mapped read-only (PROT_READ, MAP_SHARED: the user's file is never written).
// 64-bit sizes; an empty file is represented without a mapping. Immutable once open and shared
// through std::shared_ptr, so background jobs keep the bytes alive while they read them.
// Reading mapped bytes of a file that another program truncates raises SIGBUS: read through
// busguard.h (guardedCopy/runGuarded) where that can happen. The descriptor is closed as soon
// as the file is mapped (the mapping outlives it): a model of 30,000 shards holds no
// descriptor open, whatever the open-file limit.
class MappedFile {
public:
    // nullptr and a reason in `error` when the path cannot be opened or mapped (missing,
    // permission, a directory, a special file).
    static std::shared_ptr<const MappedFile> open(const std::string &path, std::string &error);

    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const std::string &path() const { return m_path; }
    std::uint64_t size() const { return m_size; }
    std::span<const std::byte> bytes() const { return {m_data, static_cast<std::size_t>(m_size)}; }
    // The bytes [offset, offset+length) clipped to the file: empty when offset is past the end.
    std::span<const std::byte> slice(std::uint64_t offset, std::uint64_t length) const;
    // Copies bytes [offset, offset + out.size()) with pread, not through the mapping: a viewer
    // reading a few rows here and there then maps no pages (kernels map whole large folios on
    // a fault, so touching one byte per megabyte would make every page resident), and a file
    // truncated under us gives a short count instead of SIGBUS. The path is opened for the read
    // and must still be the mapped file (same device and inode); when it is not (replaced,
    // removed, no descriptor left) the bytes are copied from the mapping under the SIGBUS
    // guard. Returns the bytes copied.
    std::size_t read(std::uint64_t offset, std::span<std::byte> out) const;
    // The file's size on disk now (differs from size() after a change); -1 when it vanished.
    std::int64_t currentSizeOnDisk() const;
    // Tells the kernel the bytes will be read in order (read-ahead), or only here and there.
    void adviseSequential(std::uint64_t offset, std::uint64_t length) const;
    // Which pages of [offset, offset + length) sit in the page cache now (one cachestat when they
    // all do, else mincore), one byte per page from the page holding `offset`, bit 0 set when
    // resident: taken before a one-pass scan and handed to releaseScanned after it. Empty when
    // the kernel cannot tell. (Where the kernel reports only this process's mapped pages, a file
    // neither owned nor writable, pages cached but not mapped here look absent: they are then
    // released as without a snapshot.)
    std::vector<unsigned char> residentPages(std::uint64_t offset, std::uint64_t length) const;
    // Tells the kernel a one-pass scan is done with the whole pages inside [offset, offset +
    // length): they leave this mapping (MADV_DONTNEED) and, where no other process maps them,
    // the page cache (POSIX_FADV_DONTNEED on the file, reopened and recognised by its inode), so
    // hashing or auditing a file larger than memory does not evict the user's working set.
    // Pages marked resident in `residentBefore` (residentPages of the same range, taken before
    // the scan) are left alone: a file that was in the page cache stays there, so auditing it
    // twice reads memory twice, not the disk. Reading a released range again costs a re-read
    // from disk. Safe at any time from any thread.
    void releaseScanned(std::uint64_t offset, std::uint64_t length,
                        std::span<const unsigned char> residentBefore = {}) const;

private:
    MappedFile() = default;
    // A descriptor of the path when it is still the mapped file (same device and inode), else -1.
    int openMappedFile() const;
    // Whether every page of [offset, offset + length) is in the page cache, by one cachestat(2)
    // (Linux 6.5), which walks the cache's tree once where mincore looks each page of a range
    // not mapped yet up on its own (measured on 2.27 GB in 8 MiB ranges: mincore 30 ms, cachestat
    // 5-10 ms; a tenth of an audit's CPU). False when the kernel cannot tell.
    bool allCached(std::uint64_t offset, std::uint64_t length) const;

    std::string m_path;
    const std::byte *m_data = nullptr;
    std::uint64_t m_size = 0;
    std::uint64_t m_device = 0; // identity of the mapped file, to recognise it when reopening
    std::uint64_t m_inode = 0;
};

} // namespace stb
