#pragma once

#include <QObject>

class QCheckBox;

namespace stb {

// One document's choice between a quantized weight's dequantized values (the default) and its
// stored codes. The Histogram, Values and Heatmap panes each have a "Raw codes" box; every box
// follows this one setting, so ticking any of them switches all three panes.
class RawCodesSetting : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    bool isRaw() const { return m_raw; }
    void setRaw(bool raw);
    // Keeps `box` and the setting equal both ways from now on (the box takes the setting's value).
    void follow(QCheckBox *box);

signals:
    void rawChanged(bool raw);

private:
    bool m_raw = false;
};

} // namespace stb
