#include "command.h"
#include "progressline.h"
#include "tensorselection.h"

#include "core/text/textformat.h"
#include "core/values/locate.h"
#include "core/values/valuesjson.h"

#include <cstdio>
#include <functional>

namespace stb::inspect {

namespace {

const OptionSpec kLocateOptions[] = { kJsonOption };

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
    const auto selected = selectTensor(invocation);
    if (!selected)
        return Findings;
    const TensorInfo &info = *selected->info;
    const std::uint64_t elements = *info.elementCount();
    std::optional<LocateResult> result;
    {
        ProgressLine progress("scanning", 1u << 26);
        result = locateValues(info.dtype, selected->bytes, elements, {}, std::ref(progress));
    }
    if (!result) {
        std::fprintf(stderr, "%s: the file changed on disk during the scan\n",
            printable(selected->file->path()).c_str());
        return Findings;
    }
    if (invocation.isSet(kJsonOption.name)) {
        const Json json = locateJson(info.name, info.shape, *result);
        std::printf("%s\n", jsonText(json).c_str());
        return Ok;
    }
    std::printf("'%s' %s %s, %s elements (index, N-D index, value; min/max over finite values)\n",
        printable(info.name).c_str(), std::string(dtypeName(info.dtype)).c_str(),
        formatShape(info.shape).c_str(), formatCount(result->count).c_str());
    const std::pair<const char *, const std::optional<LocatedValue> *> rows[]
        = { { "first NaN", &result->firstNaN }, { "first +Inf", &result->firstPosInf },
              { "first -Inf", &result->firstNegInf }, { "min", &result->min }, { "max", &result->max },
              { "largest |x|", &result->absMax } };
    for (const auto &[label, found] : rows)
        std::printf("  %-12s %s\n", label, positionText(*found, info.shape).c_str());
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
      "Exit status: 0 scanned; 1 unknown tensor or unreadable bytes; 2 usage error.",
    .options = kLocateOptions,
    .run = runLocate,
};

} // namespace stb::inspect
