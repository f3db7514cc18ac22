#include "core/values/valuesjson.h"

#include "core/values/stridedview.h"

#include <cmath>

namespace stb {

namespace {

Json positionJson(const std::optional<LocatedValue> &found, std::span<const std::uint64_t> shape)
{
    if (!found)
        return nullptr;
    return Json { { "index", found->index }, { "nd_index", unravelIndex(found->index, shape) },
        { "value", valueJson(found->value) } };
}

} // namespace

Json valueJson(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    return value; // nlohmann prints the shortest digits that read back to the same double
}

Json locateJson(const std::string &tensor, std::span<const std::uint64_t> shape, const LocateResult &result)
{
    return Json { { "tensor", tensor }, { "count", result.count },
        { "first_nan", positionJson(result.firstNaN, shape) },
        { "first_pos_inf", positionJson(result.firstPosInf, shape) },
        { "first_neg_inf", positionJson(result.firstNegInf, shape) },
        { "min", positionJson(result.min, shape) }, { "max", positionJson(result.max, shape) },
        { "abs_max", positionJson(result.absMax, shape) } };
}

bool writeHeatmapJson(const HeatmapSummary &summary, const std::function<bool(std::string_view)> &write)
{
    constexpr std::size_t kPiece = 64 * 1024;
    std::string text = "{\"rows\":" + std::to_string(summary.rows)
        + ",\"cols\":" + std::to_string(summary.cols) + ",\"cell_rows\":" + std::to_string(summary.cellRows)
        + ",\"cell_cols\":" + std::to_string(summary.cellCols);
    text.reserve(2 * kPiece);
    const char *const keys[] = { "min", "max", "mean", "nan", "inf" };
    Json row = Json::array();
    for (std::size_t grid = 0; grid < std::size(keys); ++grid) {
        text += ",\"";
        text += keys[grid];
        text += "\":[";
        for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
            // A row's numbers printed by nlohmann, so they read as the whole document's did.
            row.clear();
            for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
                const std::size_t c = summary.cellIndex(i, j);
                const bool any = summary.finite(i, j) > 0;
                switch (grid) {
                case 0:
                    row.push_back(any ? Json(summary.min[c]) : Json(nullptr));
                    break;
                case 1:
                    row.push_back(any ? Json(summary.max[c]) : Json(nullptr));
                    break;
                case 2:
                    row.push_back(any ? Json(summary.mean[c]) : Json(nullptr));
                    break;
                case 3:
                    row.push_back(summary.nanCount(c));
                    break;
                default:
                    row.push_back(summary.posInfCount(c) + summary.negInfCount(c));
                    break;
                }
            }
            if (i > 0)
                text += ',';
            text += row.dump(); // numbers and null only: nothing to escape
            if (text.size() >= kPiece) {
                if (!write(text))
                    return false;
                text.clear();
            }
        }
        text += ']';
    }
    text += '}';
    return write(text);
}

} // namespace stb
