#include "command.h"
#include "progressline.h"
#include "tensorselection.h"

#include "core/io/scannedpages.h"
#include "core/report/report.h"
#include "core/text/textformat.h"
#include "core/values/atomicfile.h"
#include "core/values/colourscale.h"
#include "core/values/heatmap.h"
#include "core/values/pngwriter.h"
#include "core/values/valuesjson.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>

namespace stb::inspect {

namespace {

const OptionSpec kHeatmapOptions[] = {
    { "size", "HxW", "Cells: H rows by W columns, each 1 to 8192 (clamped to the tensor's sides).",
        "256x256" },
    { "o", "OUT.png",
        "Write the picture (one pixel per cell, the browser's colours); a link's file is written, a "
        "device or FIFO (/dev/stdout) written to." },
    kJsonOption,
    kSliceOption,
    { "raw", "", "A quantized weight's stored codes instead of its dequantized values." },
};

// "HxW" with both in 1 … kMaxHeatmapSide.
bool parseSize(const std::string &text, std::uint32_t &rows, std::uint32_t &cols)
{
    const auto x = text.find('x');
    if (x == std::string::npos)
        return false;
    const auto number = [](std::string_view part, std::uint32_t &out) {
        const auto result = std::from_chars(part.data(), part.data() + part.size(), out);
        return result.ec == std::errc() && result.ptr == part.data() + part.size() && out >= 1
            && out <= kMaxHeatmapSide;
    };
    const std::string_view view(text);
    return number(view.substr(0, x), rows) && number(view.substr(x + 1), cols);
}

int runHeatmap(const Invocation &invocation)
{
    std::uint32_t rows = 0, cols = 0;
    if (!parseSize(invocation.value("size"), rows, cols))
        return usageError(
            invocation.command(), "--size takes HxW, each from 1 to 8192 (e.g. --size 256x256)");
    const bool json = invocation.isSet(kJsonOption.name);
    if (!json && !invocation.isSet("o"))
        return usageError(invocation.command(), "give -o OUT.png, --json or both");
    const auto selected = selectTensor(invocation, !invocation.isSet("raw"));
    if (!selected)
        return Findings;
    if (selected->view.axes.size() > 2) {
        std::fprintf(stderr, "'%s' %s: a heatmap shows two axes; choose them with --slice (e.g. 0,:,:)\n",
            printable(selected->info->name).c_str(), formatShape(selected->view.shape()).c_str());
        return Findings;
    }
    std::string error;
    std::optional<HeatmapSummary> summary;
    {
        ProgressLine progress("summarising", 1u << 26);
        const ScannedPages pages(selected->file->mapping(), selected->bytes); // cached before stays
        // A picture alone is drawn from the means: min and max would triple the summary.
        const HeatmapCells keep = json ? HeatmapCells::All : HeatmapCells::MeansOnly;
        summary = selected->dequantized
            ? summarizeDequantizedHeatmap(*selected->dequantized->dequantizer, selected->view, rows, cols,
                error, {}, std::ref(progress), 0, keep)
            : summarizeHeatmap(selected->info->dtype, selected->bytes, selected->view, rows, cols, error, {},
                std::ref(progress), 0, keep);
        pages.release();
    }
    if (!summary) {
        std::fprintf(stderr, "%s: %s\n", printable(selected->file->path()).c_str(), error.c_str());
        return Findings;
    }
    if (invocation.isSet("o")) {
        const std::string out = invocation.value("o");
        if (summary->cellRows == 0 || summary->cellCols == 0) {
            std::fprintf(
                stderr, "%s: the tensor is empty: there is no picture to write\n", printable(out).c_str());
            return Findings;
        }
        const std::vector<Rgb> pixels = cellColours(*summary, defaultScale(*summary));
        // Encoded in memory, written by path bytes (a path need not be UTF-8), whole or not at all
        // (a device or FIFO as it comes: atomicfile.h).
        const std::string png = encodePng(pixels, summary->cellCols, summary->cellRows);
        AtomicFile file;
        if (png.empty() || !file.open(out, selected->file->path(), error)
            || !file.write(png.data(), png.size(), error) || !file.commit(error)) {
            std::fprintf(stderr, "%s: cannot write the PNG file%s%s\n", printable(out).c_str(),
                error.empty() ? "" : ": ", error.c_str());
            return Findings;
        }
    }
    if (json) {
        const auto print = [](std::string_view piece) {
            return std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size();
        };
        if (!writeHeatmapJson(*summary, print) || !print("\n") || std::fflush(stdout) != 0) {
            std::fprintf(stderr, "cannot write the JSON to standard output: %s\n", std::strerror(errno));
            return Findings;
        }
    }
    return Ok;
}

} // namespace

extern const Command kHeatmapCommand {
    .name = "heatmap",
    .operands = "FILE NAME",
    .minFiles = 2,
    .maxFiles = 2,
    .summary = "a tensor (or a --slice of it) summarised into HxW cells: PNG or JSON",
    .help = "Summarises tensor NAME of FILE (two axes: a tensor of more takes --slice, leaving exactly\n"
            "two; a 1-D tensor is one row) into --size HxW cells: cell (i, j) covers rows\n"
            "floor(i*R/H) to floor((i+1)*R/H)-1 and the columns likewise. -o writes the picture the\n"
            "browser draws, one pixel per cell (a diverging map centred on 0 for signed data, viridis\n"
            "otherwise; NaN magenta, +Inf green, -Inf black). --json prints {\"rows\", \"cols\",\n"
            "\"cell_rows\", \"cell_cols\", \"min\", \"max\", \"mean\", \"nan\", \"inf\"}: H lists of W, "
            "min/max/mean\n"
            "over each cell's finite values (null when it has none).\n\n"
            "A recognised quantized weight (by its logical name or its codes tensor) is summarised from\n"
            "its dequantized values in its logical shape; --raw summarises the stored codes.\n\n"
            "Exit status: 0 done; 1 unknown tensor, bad slice, unreadable bytes or cannot write;\n"
            "2 usage error.",
    .options = kHeatmapOptions,
    .run = runHeatmap,
};

} // namespace stb::inspect
