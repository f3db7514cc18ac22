#include "ui/values/rawcodessetting.h"

#include <QCheckBox>

namespace stb {

void RawCodesSetting::setRaw(bool raw)
{
    if (raw == m_raw)
        return; // the boxes' echo of a change ends here
    m_raw = raw;
    emit rawChanged(raw);
}

void RawCodesSetting::follow(QCheckBox *box)
{
    box->setChecked(m_raw);
    connect(box, &QCheckBox::toggled, this, &RawCodesSetting::setRaw);
    connect(this, &RawCodesSetting::rawChanged, box, &QCheckBox::setChecked);
}

} // namespace stb
