#include "command.h"
#include "progressline.h"
#include "tensorselection.h"

#include "core/io/scannedpages.h"
#include "core/text/textformat.h"
#include "core/values/locate.h"
#include "core/values/valuesjson.h"

#include <cstdio>
#include <functional>

namespace stb::inspect {

namespace {

const OptionSpec kLocateOptions[] = {
    kJsonOption,
    { "raw", "", "A quantized weight's stored codes instead of its dequantized values." },
};

std::string positionText(const std::optional<LocatedValue> &found, std::span<const std::uint64_t> shape)
{
    if (!found)
        return "-";
    const Json value = valueJson(found->value);
    return formatCount(found->index) + "  " + formatShape(unravelIndex(found->index, shape)) + "  "
        + (value.is_string() ? value.get<std::string>() : value.dump());
}

int runLocate(const Invocation &invocation)
{
    const auto selected = selectTensor(invocation, !invocation.isSet("raw"));
    if (!selected)
        return Findings;
    const TensorInfo &info = *selected->info;
    const std::uint64_t elements = *info.elementCount();
    std::optional<LocateResult> result;
    {
        ProgressLine progress("scanning", 1u << 26);
        const ScannedPages pages(selected->file->mapping(), selected->bytes); // cached before stays
        result = selected->dequantized
            ? locateDequantized(*selected->dequantized->dequantizer, {}, std::ref(progress))
            : locateValues(info.dtype, selected->bytes, elements, {}, std::ref(progress));
        pages.release();
    }
    if (!result) {
        std::fprintf(stderr, "%s: the file changed on disk during the scan\n",
            printable(selected->file->path()).c_str());
        return Findings;
    }
    // A dequantized weight is reported under its logical name and shape, its values as float32.
    const QuantizedWeight *weight = selected->dequantized ? selected->dequantized->weight : nullptr;
    const std::string &name = weight ? weight->name : info.name;
    const std::vector<std::uint64_t> &shape = weight ? weight->logicalShape : info.shape;
    if (invocation.isSet(kJsonOption.name)) {
        const Json json = locateJson(name, shape, *result);
        std::printf("%s\n", jsonText(json).c_str());
        return Ok;
    }
    std::printf("'%s' %s %s, %s elements (index, N-D index, value; min/max over finite values)\n",
        printable(name).c_str(),
        weight ? ("dequantized " + std::string(quantSchemeName(weight->scheme))).c_str()
               : std::string(dtypeName(info.dtype)).c_str(),
        formatShape(shape).c_str(), formatCount(result->count).c_str());
    const std::pair<const char *, const std::optional<LocatedValue> *> rows[]
        = { { "first NaN", &result->firstNaN }, { "first +Inf", &result->firstPosInf },
              { "first -Inf", &result->firstNegInf }, { "min", &result->min }, { "max", &result->max },
              { "largest |x|", &result->absMax } };
    for (const auto &[label, found] : rows)
        std::printf("  %-12s %s\n", label, positionText(*found, shape).c_str());
    return Ok;
}

} // namespace

extern const Command kLocateCommand {
    .name = "locate",
    .operands = "FILE NAME",
    .minFiles = 2,
    .maxFiles = 2,
    .summary = "where tensor NAME's first NaN/Inf, min, max and largest |x| are",
    .help
    = "Scans tensor NAME of FILE on all cores and prints the flat and N-D index and the value of\n"
      "its first NaN, first +Inf, first -Inf, minimum, maximum and largest |x| (the last three\n"
      "over finite values; ties go to the lowest index). C64 tensors are located by their real\n"
      "parts. With --json: {\"tensor\", \"count\", \"first_nan\", \"first_pos_inf\",\n"
      "\"first_neg_inf\", \"min\", \"max\", \"abs_max\"}, each {\"index\", \"nd_index\", \"value\"} or\n"
      "null; a value is a number or \"nan\", \"inf\", \"-inf\".\n\n"
      "A recognised quantized weight (by its logical name or its codes tensor) is scanned on its\n"
      "dequantized values, indices in its logical shape; --raw scans the stored codes.\n\n"
      "Exit status: 0 scanned; 1 unknown tensor or unreadable bytes; 2 usage error.",
    .options = kLocateOptions,
    .run = runLocate,
};

} // namespace stb::inspect
