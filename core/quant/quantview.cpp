#include "core/quant/quantview.h"

#include "core/quant/quantrecognizer.h"

namespace stb {

QuantView QuantView::build(const Checkpoint &checkpoint, const QuantConfig *config)
{
    QuantView view;
    if (config)
        view.m_config = *config;
    QuantRecognizer(checkpoint, config, view).run();
    return view;
}

QuantView QuantView::buildWithConfig(const Checkpoint &checkpoint)
{
    std::string error;
    const auto config = loadQuantConfig(checkpoint.path(), error);
    QuantView view = build(checkpoint, config ? &*config : nullptr);
    if (!error.empty())
        view.m_warnings.push_back({ QuantRule::ConfigMismatch, error, 0, {} });
    return view;
}

std::string quantWarningLine(const QuantWarning &warning)
{
    return std::string(warning.id()) + " at byte " + std::to_string(warning.offset) + ": " + warning.message;
}

std::ptrdiff_t QuantView::weightOfCodes(std::size_t tensor) const
{
    return tensor < m_codesOf.size() ? m_codesOf[tensor] : -1;
}

std::ptrdiff_t QuantView::weightOfCompanion(std::size_t tensor) const
{
    return tensor < m_companionOf.size() ? m_companionOf[tensor] : -1;
}

std::optional<double> QuantView::bitsPerWeight() const
{
    if (!m_effectiveParameters)
        return std::nullopt;
    return 8.0 * static_cast<double>(m_tensorBytes) / static_cast<double>(m_effectiveParameters);
}

} // namespace stb
