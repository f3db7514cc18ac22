#pragma once

// Memory about to be written from end to end in one go (a header's copy, its tensor entries), and
// mapped file bytes about to be read (a scan's next chunk).
#include <cstddef>

namespace stb {

// Asks the kernel for huge pages over [data, data + size) and faults its pages in with one call,
// instead of one page fault per 4 KiB page as the writes reach them: on a virtual machine a
// fault costs several microseconds, and a 100,000-tensor header touched ~20 MB that way (the copy
// and the entries were half the CPU time of `check`). Only a hint: where the kernel refuses
// (no Linux, huge pages off, before 5.14), the pages fault in as before. Small ranges are left
// alone (below 64 KiB the calls cost more than they save).
void prefaultForWriting(void *data, std::size_t size);

// Asks for huge pages over [data, data + size) and faults in only its 4 KiB pages before the
// first 2 MiB boundary (which no huge page can hold): for room reserved generously and filled
// from the start, whose pages reached then cost a fault per 2 MiB and the others nothing.
// Small ranges are left alone, as above.
void adviseHugePages(void *data, std::size_t size);

// Maps the pages of [data, data + size), mapped file bytes about to be read, into the page tables
// with one call (MADV_POPULATE_READ) instead of a page fault per page or folio as a scan reaches
// them; pages not in the page cache are read in, as a fault would. Callers pass the bytes about
// to be read (a header: at most the reference's 100 MB limit), never a whole mapping: a file may
// be 100 GB. Only a hint:
// every failure is ignored (EINVAL before Linux 5.14, EFAULT for bytes past the end of a file
// truncated meanwhile: the scan then meets the SIGBUS guard as before). Small ranges are left
// alone, as above. Not for the bulk scans (diff, statistics): over pages already mapped, the
// usual case when a checkpoint is read twice, the call still walks every 4 KiB page and cost
// 150-200 ms of system time per 4.3 GB on Linux 6.18, more than the faults it saved on a fresh
// mapping (that kernel maps a whole large folio per fault: ~19,500 faults for 4.3 GB).
void prefaultForReading(const void *data, std::size_t size);

} // namespace stb
