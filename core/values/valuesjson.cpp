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

Json heatmapJson(const HeatmapSummary &summary)
{
    Json min = Json::array(), max = Json::array(), mean = Json::array(), nan = Json::array(),
         inf = Json::array();
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        Json minRow = Json::array(), maxRow = Json::array(), meanRow = Json::array(), nanRow = Json::array(),
             infRow = Json::array();
        for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
            const std::size_t c = summary.cellIndex(i, j);
            const bool any = summary.finite(i, j) > 0;
            minRow.push_back(any ? Json(summary.min[c]) : Json(nullptr));
            maxRow.push_back(any ? Json(summary.max[c]) : Json(nullptr));
            meanRow.push_back(any ? Json(summary.mean[c]) : Json(nullptr));
            nanRow.push_back(summary.nanCount(c));
            infRow.push_back(summary.posInfCount(c) + summary.negInfCount(c));
        }
        min.push_back(std::move(minRow));
        max.push_back(std::move(maxRow));
        mean.push_back(std::move(meanRow));
        nan.push_back(std::move(nanRow));
        inf.push_back(std::move(infRow));
    }
    return Json { { "rows", summary.rows }, { "cols", summary.cols }, { "cell_rows", summary.cellRows },
        { "cell_cols", summary.cellCols }, { "min", std::move(min) }, { "max", std::move(max) },
        { "mean", std::move(mean) }, { "nan", std::move(nan) }, { "inf", std::move(inf) } };
}

} // namespace stb
