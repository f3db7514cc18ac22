#include "core/format/diagnostic.h"

#include "core/text/textformat.h"

#include <algorithm>

namespace stb {

std::string diagnosticLine(const Diagnostic &d)
{
    std::string text(d.id());
    if (!d.reference().empty())
        text += " (" + std::string(d.reference()) + ")";
    return text + " at byte " + formatCount(d.offset) + ": " + d.message;
}

void DiagnosticList::putErrorsFirst()
{
    std::stable_partition(m_items.begin(), m_items.end(), [](const Diagnostic &d) { return d.isError(); });
}

} // namespace stb
