#include "ui/values/locatemenu.h"

#include <QCoreApplication>
#include <QMenu>

#include <utility>

namespace stb {

void addLocateActions(QMenu *menu, const std::function<void(LocateTarget)> &triggered)
{
    const std::pair<LocateTarget, const char *> targets[] = { { LocateTarget::FirstNaN, "First NaN" },
        { LocateTarget::FirstInf, "First Inf" }, { LocateTarget::Min, "Minimum" },
        { LocateTarget::Max, "Maximum" }, { LocateTarget::AbsMax, "Largest |x|" } };
    for (const auto &[target, label] : targets) {
        menu->addAction(QCoreApplication::translate("stb::LocateMenu", label),
            [triggered, target = target] { triggered(target); });
    }
}

QString locateTargetNoun(LocateTarget target)
{
    switch (target) {
    case LocateTarget::FirstNaN:
        return QCoreApplication::translate("stb::LocateMenu", "NaN");
    case LocateTarget::FirstInf:
        return QCoreApplication::translate("stb::LocateMenu", "infinity");
    default:
        return QCoreApplication::translate("stb::LocateMenu", "finite value");
    }
}

} // namespace stb
