#include "core/quant/dequantizer.h"

#include "core/io/busguard.h"
#include "core/quant/quantrecognizer.h"
#include "core/quant/quantshapes.h"
#include "core/quant/valueloads.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace stb {

using namespace quant;

namespace {

// bitsandbytes' tables (bitsandbytes/backends/utils.py; FP4 is get_4bit_type("fp4") / 12), used
// when a file lacks its quant_map.
constexpr std::array<float, 16> kNf4 = { -1.0f, -0.6961928009986877f, -0.5250730514526367f,
    -0.39491748809814453f, -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
    0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f, 0.33791524171829224f,
    0.44070982933044434f, 0.5626170039176941f, 0.7229568362236023f, 1.0f };
constexpr std::array<float, 16> kBnbFp4
    = { 0.0f, 0.0625f / 12, 8.0f / 12, 1.0f, 4.0f / 12, 6.0f / 12, 2.0f / 12, 3.0f / 12, -0.0f, -0.0625f / 12,
          -8.0f / 12, -1.0f, -4.0f / 12, -6.0f / 12, -2.0f / 12, -3.0f / 12 };
// OCP E2M1 (gpt-oss FP4_VALUES): bit 3 is the sign.
constexpr std::array<float, 16> kE2m1 = { 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f, -0.5f, -1.0f,
    -1.5f, -2.0f, -3.0f, -4.0f, -6.0f };
struct GroupIndexCheck {
    const std::byte *data;
    std::uint64_t count, groups, groupSize;
    bool ok = true;
    bool trivial = true; // every entry is i / groupSize: the index says nothing the size does not
};

void checkGroupIndex(void *context)
{
    auto &c = *static_cast<GroupIndexCheck *>(context);
    c.trivial = c.groupSize > 0;
    for (std::uint64_t i = 0; i < c.count; ++i) {
        const std::int32_t g = int32At(c.data, i);
        if (g < 0 || static_cast<std::uint64_t>(g) >= c.groups) {
            c.ok = false;
            return;
        }
        c.trivial = c.trivial && static_cast<std::uint64_t>(g) == i / c.groupSize;
    }
}

struct DecodeJob {
    const Dequantizer *self;
    std::uint64_t first, n;
    float *out;
};

} // namespace

std::optional<Dequantizer> Dequantizer::make(
    const Checkpoint &checkpoint, const QuantizedWeight &weight, std::string &error)
{
    if (!weight.decodable) {
        error = weight.note.empty() ? std::string("values stay raw") : weight.note;
        return std::nullopt;
    }
    // Every tensor read must lie wholly inside its file and be as long as its shape says.
    const auto source = [&](std::size_t tensor, Source &s) {
        const auto &t = checkpoint.tensors()[tensor];
        const SafetensorsFile *file = checkpoint.fileOf(t);
        if (!file || !file->complete(*t.info) || t.info->expectedBytes() != t.info->byteLength()) {
            error = t.info->name + ": its bytes are not all in the file or do not match its shape";
            return false;
        }
        s = { file->tensorBytes(*t.info).data(), t.info->dtype };
        return true;
    };
    const auto shapeOf = [&](std::size_t tensor) -> const std::vector<std::uint64_t> & {
        return checkpoint.tensors()[tensor].info->shape;
    };
    Dequantizer d;
    d.m_scheme = weight.scheme;
    d.m_bits = weight.bits;
    d.m_elements = weight.parameters;
    d.m_cols = weight.logicalShape.empty() ? 1 : weight.logicalShape.back();
    d.m_rows = d.m_cols ? d.m_elements / d.m_cols : 0;
    d.m_groupSize = weight.groupSize;
    d.m_block = weight.block;
    d.m_zeroPlusOne = weight.zeroPlusOne;
    if (!source(weight.tensor, d.m_codes))
        return std::nullopt;
    const QuantCompanion *scale = weight.companion(CompanionRole::Scale);
    const QuantCompanion *absmax = weight.companion(CompanionRole::Absmax);
    const QuantCompanion *zeros = weight.companion(CompanionRole::ZeroPoint);
    const QuantCompanion *gidx = weight.companion(CompanionRole::GroupIndex);
    if ((scale && !source(scale->tensor, d.m_scale)) || (absmax && !source(absmax->tensor, d.m_scale))
        || (zeros && !source(zeros->tensor, d.m_zeros)) || (gidx && !source(gidx->tensor, d.m_groupIndex)))
        return std::nullopt;
    if (!scale && !absmax) {
        error = weight.name + ": no scale";
        return std::nullopt;
    }
    const auto codeTable = [&](DType dtype) {
        for (unsigned c = 0; c < 256; ++c)
            d.m_table[c] = static_cast<float>(decodeCode(dtype, c));
    };
    const auto copyFloats = [&](const QuantCompanion *c, float *target, std::size_t count) {
        if (!c)
            return false;
        const auto bytes = readSmallTensor(checkpoint, c->tensor, 4 * count);
        if (!bytes || bytes->size() != 4 * count)
            return false;
        std::memcpy(target, bytes->data(), 4 * count);
        return true;
    };
    switch (weight.scheme) {
    case QuantScheme::Fp8Block:
        d.m_scaleCols = shapeOf(scale->tensor).at(1);
        [[fallthrough]];
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel:
        codeTable(checkpoint.tensors()[weight.tensor].info->dtype);
        break;
    case QuantScheme::Mxfp4:
        d.m_fourBit = kE2m1;
        for (unsigned s = 0; s < 256; ++s) // E8M0: 2^(s-127); 255 is NaN
            d.m_table[s] = s == 255 ? NAN : std::ldexp(1.0f, static_cast<int>(s) - 127);
        break;
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        if (!copyFloats(weight.companion(CompanionRole::QuantMap), d.m_fourBit.data(), 16))
            d.m_fourBit = weight.scheme == QuantScheme::BnbNf4 ? kNf4 : kBnbFp4;
        if (const QuantCompanion *nested = weight.companion(CompanionRole::NestedAbsmax)) {
            if (!source(nested->tensor, d.m_nestedAbsmax)
                || !copyFloats(weight.companion(CompanionRole::NestedQuantMap), d.m_table.data(), 256)) {
                error = weight.name + ": nested absmax unreadable";
                return std::nullopt;
            }
            d.m_nestedBlock = weight.nestedBlock;
            d.m_nestedOffset = static_cast<float>(weight.nestedOffset);
        }
        break;
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        d.m_groups = shapeOf(scale->tensor).at(0);
        d.m_zeroCols = shapeOf(zeros->tensor).at(1);
        break;
    case QuantScheme::PackQuantized: {
        const auto &ss = shapeOf(scale->tensor);
        d.m_groups = ss.size() == 2 ? ss[1] : 1;
        d.m_scaleCols = shapeOf(weight.tensor).at(1); // packed words per row
        break;
    }
    case QuantScheme::BnbInt8:
        break;
    }
    if (gidx) {
        GroupIndexCheck check { d.m_groupIndex.data, d.m_cols, d.m_groups, d.m_groupSize };
        if (!runGuarded(checkGroupIndex, &check) || !check.ok) {
            error = weight.name + ": a g_idx entry names no group";
            return std::nullopt;
        }
        if (check.trivial) // no act-order: groups follow from the size, without a load per value
            d.m_groupIndex.data = nullptr;
    }
    if ((d.m_scheme == QuantScheme::Gptq || d.m_scheme == QuantScheme::Awq) && !d.m_groupSize) {
        error = weight.name + ": no group size";
        return std::nullopt;
    }
    return d;
}

DequantScratch Dequantizer::makeScratch() const
{
    DequantScratch scratch;
    scratch.owner = this;
    const std::size_t size = std::max<std::uint64_t>(m_rows, kBlocksPerRun);
    scratch.scales.reserve(size);
    scratch.zeros.reserve(size);
    return scratch;
}

float Dequantizer::scaleAt(std::uint64_t index) const
{
    return floatAt(m_scale.dtype, m_scale.data, index);
}

bool Dequantizer::decodeGuarded(std::uint64_t first, std::uint64_t n, float *out) const
{
    DecodeJob job { this, first, n, out };
    return runGuarded(
        [](void *c) {
            auto &j = *static_cast<DecodeJob *>(c);
            j.self->decode(j.first, j.n, j.out);
        },
        &job);
}

void Dequantizer::decode(std::uint64_t first, std::uint64_t n, float *out) const
{
    if (m_scheme == QuantScheme::Mxfp4 || m_scheme == QuantScheme::BnbNf4
        || m_scheme == QuantScheme::BnbFp4) {
        decodeFlat(first, n, out);
        return;
    }
    std::uint64_t row = first / m_cols, col = first % m_cols;
    while (n) {
        const std::uint64_t take = std::min(n, m_cols - col);
        decodeRow(row, col, col + take, out);
        out += take;
        n -= take;
        ++row;
        col = 0;
    }
}

} // namespace stb
