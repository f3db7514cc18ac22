#pragma once

#include "core/report/report.h"
#include "core/values/heatmap.h"
#include "core/values/locate.h"

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace stb {

// `locate --json`: {"tensor", "count", "first_nan", "first_pos_inf", "first_neg_inf", "min",
// "max", "abs_max"}, each position {"index", "nd_index", "value"} or null when absent; a value is
// a number (printed so that it reads back to the same double) or "nan", "inf", "-inf".
Json locateJson(const std::string &tensor, std::span<const std::uint64_t> shape, const LocateResult &result);

// `heatmap --json`: {"rows", "cols", "cell_rows", "cell_cols", "min", "max", "mean", "nan", "inf"},
// each grid cell_rows lists of cell_cols; min/max/mean null for a cell without finite values;
// "inf" counts both signs. One line, no newline, the text jsonText would give of that object
// (numbers as nlohmann prints them), handed to `write` in pieces of about 64 KiB as it is made:
// a DOM of the cells cost some 190 bytes a cell (13 GB at 8192×8192), this a cell row at a time.
// Stops, returning false, at the first piece `write` refuses.
bool writeHeatmapJson(const HeatmapSummary &summary, const std::function<bool(std::string_view)> &write);

// A double as JSON: the number, or "nan"/"inf"/"-inf" (JSON has no such numbers).
Json valueJson(double value);

} // namespace stb
