#include "ui/common/statuscolors.h"

#include <algorithm>
#include <iterator>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// Each tone as drawn on a light palette: a strong colour for text, a soft one for backgrounds
// (the values the light theme has always shown).
struct ToneColors {
    QRgb text;
    QRgb tint;
};

// Indexed by Tone, in its order.
constexpr ToneColors kLight[] = {
    { 0x1e8449, 0xd6f0d9 }, // Good
    { 0xc0392b, 0xf8d7da }, // Bad
    { 0xa05000, 0xfcefc7 }, // Warning
    { 0x2c5d8f, 0xd7e8fa }, // Information
    { 0x666666, 0xe4e4e4 }, // Muted
    { 0xa05000, 0xffe08a }, // Changed
    { 0x8a7a20, 0xfaf0c8 }, // WithinTolerance
    { 0xb35a00, 0xffc28a }, // DTypeChanged
    { 0xb03a2e, 0xf4a6a0 }, // ShapeChanged
    { 0xc0392b, 0xfbdcdc }, // Removed
    { 0x1e8449, 0xd6f0d9 }, // Added
};
static_assert(std::size(kLight) == static_cast<std::size_t>(Tone::Added) + 1, "one entry per Tone");

ToneColors lightColors(Tone tone)
{
    return kLight[static_cast<std::size_t>(tone)];
}

} // namespace

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5
        || palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor toneText(Tone tone, const QPalette &palette)
{
    if (tone == Tone::Muted) {
        // Halfway between the text and its background: secondary, in any theme.
        const QColor text = palette.color(QPalette::WindowText), back = palette.color(QPalette::Window);
        return QColor::fromRgbF((text.redF() + back.redF()) / 2, (text.greenF() + back.greenF()) / 2,
            (text.blueF() + back.blueF()) / 2);
    }
    const QColor light = QColor::fromRgb(lightColors(tone).text);
    if (!isDarkPalette(palette))
        return light;
    // The same hue, light enough to read on a dark background.
    return QColor::fromHslF(light.hslHueF(), std::min(1.0f, light.hslSaturationF()), 0.68f);
}

QColor toneTint(Tone tone, const QPalette &palette)
{
    const QColor light = QColor::fromRgb(lightColors(tone).tint);
    if (!isDarkPalette(palette))
        return light;
    // A deep shade of the same hue: the palette's light text stays readable on it. The light
    // palette tells strong tints (changed, shape changed: lightness about 0.77) from soft ones
    // (within tolerance, only in A: about 0.9) by lightness; here soft ones are darker and
    // duller, or "shape changed" and "only in A" would be one red.
    const float soft = std::clamp((light.lightnessF() - 0.77f) / 0.15f, 0.0f, 1.0f);
    return QColor::fromHslF(light.hslHueF(), std::min(0.65f - 0.3f * soft, light.hslSaturationF()),
        0.30f - 0.08f * soft);
}

QString toneHtml(Tone tone, const QString &text, const QPalette &palette)
{
    return u"<span style='color:%1'>%2</span>"_s.arg(toneText(tone, palette).name(), text);
}

QString invalidFieldStyle(const QPalette &palette)
{
    return u"QLineEdit { background: %1; }"_s.arg(toneTint(Tone::Bad, palette).name());
}

} // namespace stb
