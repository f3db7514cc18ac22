#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantizedweight.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stb {

class Dequantizer;

// An 8-bit GPTQ or pack-quantized weight without act order, as groups of byte codes
// (Dequantizer::byteGroups): element (output o, input i) is scale · (code − zero) with the scale
// and the integer zero of (group i / groupSize, o). GPTQ interleaves the outputs: code (i, o) is
// byte i % 4 of word (i / 4, o), so the rows of 4 inputs are `rowBytes` = 4 · outputs apart.
// Pack-quantized holds each output's inputs in a row of `rowBytes`, code (i, o) at o · rowBytes + i.
struct ByteGroups {
    const std::uint8_t *codes = nullptr;
    bool interleaved = false; // GPTQ
    // 4: GPTQ's 4-bit codes, code (i, o) nibble i % 8 of word (i / 8, o) (rows of 8 inputs); the
    // statistics split a tile's nibbles into rows of byte codes first (bytegroupruns.h).
    unsigned bits = 8;
    std::uint64_t outputs = 0, inputs = 0, groupSize = 0, groups = 0, rowBytes = 0;
};

// Where a logical element's code lies in the codes tensor (Dequantizer::codeBytes): `length`
// bytes from byte `offset` of the tensor's data hold its `bits` bits (from bit `shift` of the
// first byte), and parts of `sharing` codes in all. A 3-bit GPTQ code that straddles two packed
// words continues in another word: `continues` says so (the bytes given are the first word's).
struct CodeBytes {
    std::uint64_t offset = 0, length = 1;
    unsigned shift = 0, bits = 8;
    std::uint64_t sharing = 1;
    bool continues = false;
};

// One thread's working space for Dequantizer::decodeStorage: the scales and zero-points of the
// group being decoded, converted to floats once per group instead of once per value.
// Dequantizer::countStorage's count tables (cleared between calls) and the values of one run.
// Where Dequantizer::countStorage writes the counts it reports, a byte each (`record`), or
// reads them from instead of counting codes (`replay`): the statistics' pass 1 records, and
// pass 2 reports the same values and counts without reading a code. Null: neither.
struct CountTape {
    std::uint8_t *record = nullptr;
    const std::uint8_t *replay = nullptr;
};

struct DequantScratch {
    const Dequantizer *owner = nullptr;
    std::uint64_t group = UINT64_MAX;
    std::vector<float> scales, zeros;
    std::vector<std::uint32_t> counts;
    std::vector<float> values;
    CountTape tape; // countStorage's, for the call under way
};

// What Dequantizer::countStorage reports, in batches: for every k < n, `counts[k]` elements
// dequantize to `values[k]` (the float decode() gives, bit for bit). Counts may be 0.
class CodeCountSink {
public:
    virtual void add(const float *values, const std::uint32_t *counts, std::size_t n) = 0;
    // add() of counts that are bytes: how countStorage replays a CountTape (no table to widen
    // them into and clear again). By default widened and passed to add() in one call.
    virtual void addBytes(const float *values, const std::uint8_t *counts, std::size_t n)
    {
        const std::vector<std::uint32_t> wide(counts, counts + n);
        add(values, wide.data(), n);
    }
    // add() and clear the counts: how countStorage hands over a table it reuses.
    void take(const float *values, std::uint32_t *counts, std::size_t n)
    {
        if (!n)
            return;
        add(values, counts, n);
        std::fill(counts, counts + n, 0u);
    }

protected:
    ~CodeCountSink() = default;
};

// Decodes a quantized weight's logical elements to floats straight from the mapping, a run at a
// time: the dequantized tensor is never materialised. Built once per weight (cheap: it checks
// that every tensor it reads is wholly inside its file and as large as its shape says, and
// that every g_idx is a valid group), then used from any number of threads.
class Dequantizer {
public:
    // nullopt with a reason when the weight is not decodable (QuantizedWeight::decodable) or a
    // tensor it reads does not fit. Reads only g_idx and small tables, under the SIGBUS guard.
    // `checkpoint` must outlive the Dequantizer (it points into its mappings).
    static std::optional<Dequantizer> make(
        const Checkpoint &checkpoint, const QuantizedWeight &weight, std::string &error);

    std::uint64_t elements() const { return m_elements; }
    // The logical weight as a matrix: its last logical axis is `columns()`, the others `rows()`.
    std::uint64_t rows() const { return m_rows; }
    std::uint64_t columns() const { return m_cols; }

    // Logical elements [first, first + n) in row-major order of the logical shape, into `out`.
    // Reads the mapping: call it inside runGuarded (decodeGuarded does). Precondition:
    // first + n <= elements().
    void decode(std::uint64_t first, std::uint64_t n, float *out) const;
    // decode() under the SIGBUS guard; false when the file vanished under the read.
    bool decodeGuarded(std::uint64_t first, std::uint64_t n, float *out) const;

    // Logical rows [row0, row0 + rows) × columns [col0, col0 + cols) of the weight seen as a matrix
    // into out[r·rowStride + c·colStride] (r, c counted from the corner): a tile of the value grid,
    // or with rowStride 1 its transpose. The same floats decode() gives; AWQ unpacks each packed
    // word once for its 8 rows instead of once per value (dequantizertiles.cpp). Reads the mapping
    // (call it inside runGuarded). Precondition: the rectangle lies inside rows() × columns().
    void decodeTile(std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, float *out,
        std::uint64_t rowStride, std::uint64_t colStride) const;

    // The bytes of the codes tensor holding logical element `element`'s code (element <
    // elements()). Arithmetic only: reads nothing.
    CodeBytes codeBytes(std::uint64_t element) const;

    // The values at storage positions [first, first + n): over [0, elements()) the same values
    // decode() gives (bit for bit), in the order their codes lie in the file (GPTQ and AWQ:
    // input-major; 4-bit blocks: low nibbles, then high ones), so the packed words are read in
    // memory order by vector loops. For consumers that do not need positions (statistics).
    // Reads the mapping (call it inside runGuarded); `scratch` belongs to the calling thread.
    void decodeStorage(std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const;
    // A scratch for decodeStorage, sized so that decoding allocates nothing.
    DequantScratch makeScratch() const;
    static constexpr std::uint64_t kBlocksPerRun = 256; // 4-bit blocks whose scales are converted at once
    bool decodeStorageGuarded(
        std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const;

    // Code counting (dequantizercounts.cpp), the statistics' fast way: a value is a function of
    // a code (16 or 256 of them) and its group's scale, so the codes of the elements sharing a
    // scale are counted and each code's value is reported once with its count.
    // countsCodes: this layout can be counted with bounded tables (not 3-bit or act-order
    // groups, not 2^20 table entries); countingPays: and a scale covers more elements than there
    // are codes, so that reporting values per code is less work than per element.
    bool countsCodes() const;
    bool countingPays() const;
    // countingPays where no histogram is wanted (the CLI audit table): with the AVX-512 kernels,
    // only for integer codes with zero points (GPTQ, AWQ, pack-quantized); decoding the float
    // codes (FP8, MXFP4, bitsandbytes) into those kernels is then faster.
    bool countingPaysWithoutHistogram() const;
    // Storage positions whose counts share tables: ranges starting at multiples of it report
    // the fewest runs (a GPTQ group of every output, a row of FP8 blocks).
    std::uint64_t countSpan() const;
    // Elements sharing one scale (UINT64_MAX: the scales are 8-bit codes, counted with the
    // codes), and the bits of a code: runs report 2^codeBits() counts each.
    std::uint64_t scaleRun() const;
    unsigned codeBits() const;
    // The counts of the codes at positions [first, first + n) of an order of its own (storage
    // order, or logical order for the 4-bit blocks), into `sink`: over [0, elements()) the same
    // multiset of values decode() gives. Leaves the scratch's tables cleared.
    // Precondition: countsCodes(). Reads the mapping (call it inside runGuarded).
    void countStorage(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink,
        CountTape tape = {}) const;
    // Whether countStorage can record to a CountTape and replay it (every count it reports fits a
    // byte: bitsandbytes 4-bit blocks without double quantization, GPTQ, AWQ and pack-quantized
    // groups of at most 255), and how many bytes it records for a range of n positions at most.
    bool tapesCounts() const;
    std::uint64_t tapeBytes(std::uint64_t n) const;

    // The layout as byte groups (dequantizerbytegroups.cpp), for the statistics of 8-bit groups
    // by integer sums and code thresholds: nullopt unless 8-bit GPTQ or pack-quantized, or 4-bit
    // GPTQ, without act order, whole groups of a multiple of 4 (4-bit: 8) inputs, at most
    // kMaxByteGroup of them.
    std::optional<ByteGroups> byteGroups() const;
    static constexpr std::uint64_t kMaxByteGroup = 4096;
    // The scales (as decode() converts them) and zeros of outputs [o0, o0 + n) in group `group`:
    // decode() gives (float(code) − float(zero)) · scale for each of their codes, and the
    // difference is exact (both are integers below 2^9).
    void byteGroupParams(std::uint64_t group, std::uint64_t o0, std::uint64_t n, float *scales,
        std::int32_t *zeros) const;
    // The same for groups [group0, group0 + n) of output o (a pack-quantized row's scales lie
    // in a row: the statistics read them a row at a time).
    void byteRowParams(
        std::uint64_t o, std::uint64_t group0, std::uint64_t n, float *scales, std::int32_t *zeros) const;

private:
    struct Source {
        const std::byte *data = nullptr;
        DType dtype = DType::F32;
    };
    Dequantizer() = default;
    void decodeRow(std::uint64_t row, std::uint64_t c0, std::uint64_t c1, float *out) const;
    void awqTile(std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, float *out,
        std::uint64_t rowStride, std::uint64_t colStride) const;
    void decodeFlat(std::uint64_t first, std::uint64_t n, float *out) const;
    float scaleAt(std::uint64_t index) const;
    std::int32_t gptqZero(std::uint64_t group, std::uint64_t output) const;
    float blockScale(std::uint64_t block) const; // MXFP4, bitsandbytes 4-bit, packedBlocks()
    float blockZero(std::uint64_t block) const;
    bool packedBlocks() const;
    float nestedScale(unsigned code, std::uint64_t nested) const; // bitsandbytes double quantization
    void countRows(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const;
    void countFp8Blocks(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const;
    void countFlat(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const;
    void countGrouped(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const;
    void countPacked(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const;
    // The sink's take() of tables[0, n) with their values, the counts recorded on the tape first;
    // or when replaying, the tape's counts instead (the tables, not counted into, stay clear).
    static void report(DequantScratch &scratch, CodeCountSink &sink, const float *values,
        std::uint32_t *tables, std::size_t n);
    void fp8Run(const std::uint8_t *codes, float scale, std::uint64_t n, float *out) const;
    void loadGroup(std::uint64_t group, DequantScratch &scratch) const; // GPTQ and AWQ
    void storageGrouped(std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const;
    void storageFlat(std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const;

    QuantScheme m_scheme = QuantScheme::Fp8Tensor;
    std::uint64_t m_elements = 0, m_rows = 0, m_cols = 0;
    unsigned m_bits = 0;
    std::uint64_t m_groups = 0, m_groupSize = 0;
    std::array<std::uint64_t, 2> m_block { 0, 0 };
    std::uint64_t m_scaleCols = 0, m_zeroCols = 0, m_nestedBlock = 0;
    float m_nestedOffset = 0;
    bool m_zeroPlusOne = false;
    Source m_codes, m_scale, m_zeros, m_groupIndex, m_nestedAbsmax;
    std::array<float, 256> m_table {}; // code -> value (FP8, FP4, NF4, E2M1), or nested quant map
    std::array<float, 16> m_fourBit {}; // bitsandbytes 4-bit quant map
};

} // namespace stb
