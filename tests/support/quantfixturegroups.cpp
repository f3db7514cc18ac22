// Quantized fixtures, part two: the integer schemes with groups (GPTQ, AWQ, pack-quantized) and
// bitsandbytes, each computed as its tool computes it (docs/quantization.md).
#include "tests/support/quantfixturebits.h"
#include "tests/support/quantfixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace stb::test {

using namespace fixture;

namespace {

constexpr float kNf4[16] = { -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
    -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f,
    0.16093020141124725f, 0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f,
    0.5626170039176941f, 0.7229568362236023f, 1.0f };
const float kFp4[16] = { 0, 0.0625f / 12, 8 / 12.0f, 1, 4 / 12.0f, 6 / 12.0f, 2 / 12.0f, 3 / 12.0f, -0.0f,
    -0.0625f / 12, -8 / 12.0f, -1, -4 / 12.0f, -6 / 12.0f, -2 / 12.0f, -3 / 12.0f };

// Asymmetric min/max quantization of one group (GPTQ's Quantizer.find_params, AWQ's
// pseudo_quantize_tensor): the range includes 0, scale stored as F16, zero rounded.
struct Asym {
    float scale; // already F16-rounded
    std::uint32_t zero;
};
Asym asymmetric(const float *w, std::uint64_t n, std::uint64_t stride, unsigned bits)
{
    float lo = 0, hi = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
        lo = std::min(lo, w[k * stride]);
        hi = std::max(hi, w[k * stride]);
    }
    const float maxq = static_cast<float>((1u << bits) - 1);
    float scale = (hi - lo) / maxq;
    if (scale == 0)
        scale = 1;
    scale = halfValue(halfBits(scale));
    return { scale, static_cast<std::uint32_t>(std::clamp(std::nearbyint(-lo / scale), 0.0f, maxq)) };
}

std::uint32_t quantizeAsym(float w, const Asym &a, unsigned bits)
{
    const float maxq = static_cast<float>((1u << bits) - 1);
    return static_cast<std::uint32_t>(
        std::clamp(std::nearbyint(w / a.scale) + static_cast<float>(a.zero), 0.0f, maxq));
}

// Enough digits for a float to read back exactly.
std::string floatText(float v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(v));
    return text;
}

std::vector<std::byte> halves(const std::vector<float> &values)
{
    std::vector<std::byte> out;
    for (float v : values)
        put(out, halfBits(v));
    return out;
}

// AutoGPTQ's pack loop (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py, QuantLinear.pack),
// written out as the tool writes it: `rows` × `cols` codes packed along the rows into words of
// 32 bits, 2/4/8 bits `32/bits` codes a word, 3 bits 32 codes into three words with codes 10 and
// 21 split across a boundary. Kept literal (not a bit stream) so it checks the decoder's reading.
std::vector<std::uint32_t> autoGptqPack(
    const std::vector<std::uint32_t> &codes, std::uint64_t rows, std::uint64_t cols, unsigned bits)
{
    const std::uint64_t packedRows = rows * bits / 32; // 3 bits: rows a multiple of 32
    std::vector<std::uint32_t> packed(packedRows * cols, 0);
    const auto at = [&](std::uint64_t row) { return &packed[row * cols]; };
    const auto in = [&](std::uint64_t row) { return &codes[row * cols]; };
    std::uint64_t i = 0, row = 0;
    while (row < packedRows) {
        if (bits != 3) {
            for (std::uint64_t j = i; j < i + 32 / bits; ++j)
                for (std::uint64_t c = 0; c < cols; ++c)
                    at(row)[c] |= in(j)[c] << (bits * (j - i));
            i += 32 / bits;
            row += 1;
            continue;
        }
        for (std::uint64_t j = i; j < i + 10; ++j)
            for (std::uint64_t c = 0; c < cols; ++c)
                at(row)[c] |= in(j)[c] << (3 * (j - i));
        i += 10;
        for (std::uint64_t c = 0; c < cols; ++c)
            at(row)[c] |= in(i)[c] << 30;
        row += 1;
        for (std::uint64_t c = 0; c < cols; ++c)
            at(row)[c] |= (in(i)[c] >> 2) & 1;
        i += 1;
        for (std::uint64_t j = i; j < i + 10; ++j)
            for (std::uint64_t c = 0; c < cols; ++c)
                at(row)[c] |= in(j)[c] << (3 * (j - i) + 1);
        i += 10;
        for (std::uint64_t c = 0; c < cols; ++c)
            at(row)[c] |= in(i)[c] << 31;
        row += 1;
        for (std::uint64_t c = 0; c < cols; ++c)
            at(row)[c] |= (in(i)[c] >> 1) & 0x3;
        i += 1;
        for (std::uint64_t j = i; j < i + 10; ++j)
            for (std::uint64_t c = 0; c < cols; ++c)
                at(row)[c] |= in(j)[c] << (3 * (j - i) + 2);
        i += 10;
        row += 1;
    }
    return packed;
}

} // namespace

QuantFixture gptq(const std::string &base, std::uint64_t out, std::uint64_t in, unsigned bits,
    std::uint64_t group, bool v2, bool actOrder)
{
    QuantFixture f = start(base + ".weight", { out, in }, 21 + bits);
    // Every fourth output's weights made positive: their groups' zero-points are 0, which the
    // gptq format stores as all ones (0 − 1 in the field) and readers take back as (field + 1)
    // mod 2^bits.
    for (std::uint64_t o = 1; o < out; o += 4)
        for (std::uint64_t i = 0; i < in; ++i)
            f.original[o * in + i] = std::fabs(f.original[o * in + i]);
    const std::uint64_t groups = ceilDiv(in, group);
    const std::uint32_t mask = (1u << bits) - 1;
    // intweight [in, out] and the stored zeros transposed, [out, groups], both packed along
    // their rows as AutoGPTQ packs qweight along the inputs and qzeros along the outputs.
    std::vector<std::uint32_t> intweight(in * out, 0), zerosT(out * groups, 0);
    std::vector<float> scales(groups * out);
    // Act-order quantizes inputs in a permuted order (GPTQ's desc_act): input i joins the group
    // of its place in that order, here i·7 mod in (a permutation when in is prime to 7).
    std::vector<std::uint64_t> groupOf(in);
    for (std::uint64_t i = 0; i < in; ++i)
        groupOf[i] = (actOrder ? i * 7 % in : i) / group;
    std::vector<std::byte> gidx;
    for (std::uint64_t g = 0; g < groups; ++g) {
        std::vector<std::uint64_t> members;
        for (std::uint64_t i = 0; i < in; ++i)
            if (groupOf[i] == g)
                members.push_back(i);
        for (std::uint64_t o = 0; o < out; ++o) {
            std::vector<float> values;
            for (std::uint64_t i : members)
                values.push_back(f.original[o * in + i]);
            const Asym a = asymmetric(values.data(), values.size(), 1, bits);
            scales[g * out + o] = a.scale;
            // The gptq format stores zero - 1 in the field (AutoGPTQ's pack: `zeros -= 1`; a zero
            // of 0 as all ones); gptq_v2 the zero.
            zerosT[o * groups + g] = (v2 ? a.zero : a.zero - 1) & mask;
            for (std::uint64_t i : members) {
                const std::uint32_t q = quantizeAsym(f.original[o * in + i], a, bits);
                intweight[i * out + o] = q;
                f.expected[o * in + i] = a.scale * (static_cast<float>(q) - static_cast<float>(a.zero));
            }
        }
    }
    const std::vector<std::uint32_t> qweight = autoGptqPack(intweight, in, out, bits);
    const std::vector<std::uint32_t> packedZerosT = autoGptqPack(zerosT, out, groups, bits);
    const std::uint64_t zeroWords = out * bits / 32;
    std::vector<std::uint32_t> qzeros(groups * zeroWords);
    for (std::uint64_t w = 0; w < zeroWords; ++w)
        for (std::uint64_t g = 0; g < groups; ++g)
            qzeros[g * zeroWords + w] = packedZerosT[w * groups + g];
    for (std::uint64_t i = 0; i < in; ++i)
        put(gidx, static_cast<std::int32_t>(groupOf[i]));
    addTensor(f, base + ".qweight", DType::I32, { in * bits / 32, out }, words(qweight));
    addTensor(f, base + ".qzeros", DType::I32, { groups, zeroWords }, words(qzeros));
    addTensor(f, base + ".scales", DType::F16, { groups, out }, halves(scales));
    addTensor(f, base + ".g_idx", DType::I32, { in }, std::move(gidx));
    return f;
}

QuantFixture awq(const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t group)
{
    QuantFixture f = start(base + ".weight", { out, in }, 31);
    constexpr unsigned kOrder[8] = { 0, 2, 4, 6, 1, 3, 5, 7 }; // AutoAWQ's order_map
    const std::uint64_t groups = ceilDiv(in, group);
    std::vector<std::uint32_t> iw(in * out), zeros(groups * out);
    std::vector<float> scales(groups * out);
    for (std::uint64_t g = 0; g < groups; ++g) {
        for (std::uint64_t o = 0; o < out; ++o) {
            const std::uint64_t i0 = g * group, n = std::min(in, i0 + group) - i0;
            const Asym a = asymmetric(&f.original[o * in + i0], n, 1, 4);
            scales[g * out + o] = a.scale;
            zeros[g * out + o] = a.zero;
            for (std::uint64_t i = i0; i < i0 + n; ++i) {
                const std::uint32_t q = quantizeAsym(f.original[o * in + i], a, 4);
                iw[i * out + o] = q; // intweight is [in, out]
                f.expected[o * in + i] = (static_cast<float>(q) - static_cast<float>(a.zero)) * a.scale;
            }
        }
    }
    const auto packRows = [&](const std::vector<std::uint32_t> &v, std::uint64_t rows) {
        std::vector<std::uint32_t> packed(rows * (out / 8), 0);
        for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t col = 0; col < out / 8; ++col)
                for (unsigned k = 0; k < 8; ++k)
                    packed[r * (out / 8) + col] |= v[r * out + col * 8 + kOrder[k]] << (4 * k);
        return packed;
    };
    addTensor(f, base + ".qweight", DType::I32, { in, out / 8 }, words(packRows(iw, in)));
    addTensor(f, base + ".qzeros", DType::I32, { groups, out / 8 }, words(packRows(zeros, groups)));
    addTensor(f, base + ".scales", DType::F16, { groups, out }, halves(scales));
    return f;
}

QuantFixture packQuantized(
    const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t group, unsigned bits)
{
    QuantFixture f = start(base + ".weight", { out, in }, 41);
    const unsigned pack = 32 / bits;
    const std::uint64_t groups = ceilDiv(in, group), cols = ceilDiv(in, pack);
    const int qmin = -(1 << (bits - 1)), qmax = (1 << (bits - 1)) - 1;
    std::vector<std::uint32_t> packed(out * cols, 0);
    std::vector<float> scales(out * groups);
    std::vector<std::byte> shape;
    for (std::uint64_t o = 0; o < out; ++o) {
        for (std::uint64_t g = 0; g < groups; ++g) {
            const std::uint64_t i0 = g * group, i1 = std::min(in, i0 + group);
            float amax = 0;
            for (std::uint64_t i = i0; i < i1; ++i)
                amax = std::max(amax, std::fabs(f.original[o * in + i]));
            // compressed-tensors' symmetric scale: max|w| / ((qmax - qmin) / 2).
            float scale = amax > 0 ? amax / (static_cast<float>(qmax - qmin) / 2) : 1.0f;
            scale = halfValue(halfBits(scale));
            scales[o * groups + g] = scale;
            for (std::uint64_t i = i0; i < i1; ++i) {
                const int q = static_cast<int>(std::clamp(std::nearbyint(f.original[o * in + i] / scale),
                    static_cast<float>(qmin), static_cast<float>(qmax)));
                packed[o * cols + i / pack] |= static_cast<std::uint32_t>(q - qmin) << (bits * (i % pack));
                f.expected[o * in + i] = static_cast<float>(q) * scale;
            }
        }
    }
    put(shape, static_cast<std::int64_t>(out));
    put(shape, static_cast<std::int64_t>(in));
    addTensor(f, base + ".weight_packed", DType::I32, { out, cols }, words(packed));
    addTensor(f, base + ".weight_scale", DType::F16, { out, groups }, halves(scales));
    addTensor(f, base + ".weight_shape", DType::I64, { 2 }, std::move(shape));
    return f;
}

QuantFixture bnb4(
    const std::string &base, std::uint64_t out, std::uint64_t in, bool nf4, bool nested, DType storage)
{
    QuantFixture f = start(base + ".weight", { out, in }, nf4 ? 51 : 52);
    const float *code = nf4 ? kNf4 : kFp4;
    constexpr std::uint64_t kBlock = 64, kNested = 256;
    const std::uint64_t n = out * in, blocks = ceilDiv(n, kBlock);
    std::vector<float> absmax(blocks, 0);
    for (std::uint64_t e = 0; e < n; ++e)
        absmax[e / kBlock] = std::max(absmax[e / kBlock], std::fabs(f.original[e]));
    // Double quantization: absmax minus its mean, in blocks of 256 against a 256-entry map.
    std::vector<float> used = absmax, nestedAbsmax, map(256);
    std::vector<std::byte> absmaxBytes, nestedBytes, mapBytes;
    float offset = 0;
    if (nested) {
        for (float a : absmax)
            offset += a;
        offset /= static_cast<float>(blocks);
        offset = std::stof(floatText(offset)); // the value the JSON state will say
        for (int k = 0; k < 256; ++k)
            map[static_cast<std::size_t>(k)] = -1.0f + 2.0f * static_cast<float>(k) / 255.0f;
        nestedAbsmax.assign(ceilDiv(blocks, kNested), 0);
        for (std::uint64_t b = 0; b < blocks; ++b)
            nestedAbsmax[b / kNested] = std::max(nestedAbsmax[b / kNested], std::fabs(absmax[b] - offset));
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const float na = nestedAbsmax[b / kNested] > 0 ? nestedAbsmax[b / kNested] : 1.0f;
            int best = 0;
            for (int k = 1; k < 256; ++k)
                if (std::fabs(map[static_cast<std::size_t>(k)] - (absmax[b] - offset) / na)
                    < std::fabs(map[static_cast<std::size_t>(best)] - (absmax[b] - offset) / na))
                    best = k;
            absmaxBytes.push_back(static_cast<std::byte>(best));
            used[b] = map[static_cast<std::size_t>(best)] * nestedAbsmax[b / kNested] + offset;
        }
        for (float v : nestedAbsmax)
            put(nestedBytes, v);
        for (float v : map)
            put(mapBytes, v);
    } else {
        for (float a : absmax)
            put(absmaxBytes, a);
    }
    std::vector<std::byte> packed(ceilDiv(n, 2), std::byte { 0 }), quantMap;
    for (std::uint64_t e = 0; e < n; ++e) {
        const float a = absmax[e / kBlock] > 0 ? absmax[e / kBlock] : 1.0f;
        int q = 0;
        for (int k = 1; k < 16; ++k)
            if (std::fabs(code[k] - f.original[e] / a) < std::fabs(code[q] - f.original[e] / a))
                q = k;
        packed[e / 2] |= static_cast<std::byte>(e % 2 ? q : q << 4); // high nibble first
        f.expected[e] = code[q] * used[e / kBlock];
    }
    for (int k = 0; k < 16; ++k)
        put(quantMap, code[k]);
    const std::string type = nf4 ? "nf4" : "fp4";
    std::string state = "{\"quant_type\": \"" + type
        + "\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": [" + std::to_string(out) + ", "
        + std::to_string(in) + "]";
    if (nested)
        state += ", \"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": "
            + floatText(offset);
    state += "}";
    std::vector<std::byte> stateBytes(state.size());
    std::memcpy(stateBytes.data(), state.data(), state.size());
    const std::string w = base + ".weight";
    const std::uint64_t storageBytes = dtypeBits(storage) / 8;
    addTensor(f, w, storage, { ceilDiv(n, 2) / storageBytes, 1 }, std::move(packed));
    addTensor(f, w + ".absmax", nested ? DType::U8 : DType::F32, { blocks }, std::move(absmaxBytes));
    addTensor(f, w + ".quant_map", DType::F32, { 16 }, std::move(quantMap));
    if (nested) {
        addTensor(f, w + ".nested_absmax", DType::F32, { nestedAbsmax.size() }, std::move(nestedBytes));
        addTensor(f, w + ".nested_quant_map", DType::F32, { 256 }, std::move(mapBytes));
    }
    addTensor(
        f, w + ".quant_state.bitsandbytes__" + type, DType::U8, { state.size() }, std::move(stateBytes));
    return f;
}

QuantFixture bnbInt8(const std::string &base, std::uint64_t out, std::uint64_t in)
{
    QuantFixture f = start(base + ".weight", { out, in }, 61);
    std::vector<std::byte> codes(out * in), scb;
    for (std::uint64_t o = 0; o < out; ++o) {
        float amax = 0;
        for (std::uint64_t i = 0; i < in; ++i)
            amax = std::max(amax, std::fabs(f.original[o * in + i]));
        put(scb, amax);
        for (std::uint64_t i = 0; i < in; ++i) {
            // bitsandbytes' int8_vectorwise_quant: round(A * (127 / row_absmax)).
            const float q = std::nearbyint(f.original[o * in + i] * (127.0f / amax));
            codes[o * in + i] = static_cast<std::byte>(static_cast<std::int8_t>(q));
            f.expected[o * in + i] = q * amax / 127.0f;
        }
    }
    addTensor(f, base + ".weight", DType::I8, { out, in }, std::move(codes));
    addTensor(f, base + ".SCB", DType::F32, { out }, std::move(scb));
    return f;
}

QuantFixture withZeroPoints(
    QuantFixture f, const std::string &base, std::uint64_t out, std::uint64_t groups, unsigned bits)
{
    std::mt19937 rng(5);
    const std::uint64_t perWord = 32 / bits, words = (out + perWord - 1) / perWord * groups;
    std::vector<std::byte> zeros(4 * words);
    for (auto &b : zeros)
        b = static_cast<std::byte>(rng());
    f.specs.push_back({ base + ".weight_zero_point", DType::I32, { (out + perWord - 1) / perWord, groups } });
    f.data.push_back(std::move(zeros));
    return f;
}

QuantFixture plainBf16(const std::string &name, std::vector<std::uint64_t> shape)
{
    QuantFixture f = start(name, std::move(shape), 71);
    std::vector<std::byte> bytes;
    for (std::size_t e = 0; e < f.original.size(); ++e) {
        const std::uint16_t b = bf16Bits(f.original[e]);
        put(bytes, b);
        f.expected[e] = bf16Value(b);
    }
    addTensor(f, name, DType::BF16, f.shape, std::move(bytes));
    return f;
}

bool writeFixtures(const std::string &path, const std::vector<QuantFixture> &fixtures, std::string &error)
{
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const auto &f : fixtures) {
        specs.insert(specs.end(), f.specs.begin(), f.specs.end());
        data.insert(data.end(), f.data.begin(), f.data.end());
    }
    return writeFile(path, specs, data, {}, error);
}

} // namespace stb::test
