#include "ui/hex/bytedescription.h"

#include "core/io/safetensorsfile.h"
#include "ui/common/qtformat.h"

#include <QCoreApplication>
#include <QStringList>

#include <array>
#include <numeric>

using namespace Qt::StringLiterals;

namespace stb {

std::optional<ElementPosition> elementAtByte(const TensorInfo &tensor, std::uint64_t byteInTensor)
{
    const auto count = tensor.elementCount();
    const std::uint64_t bits = dtypeBits(tensor.dtype);
    if (!count || byteInTensor > UINT64_MAX / 8)
        return std::nullopt;
    ElementPosition position;
    position.index = byteInTensor * 8 / bits;
    if (position.index >= *count)
        return std::nullopt;
    position.coordinates.assign(tensor.shape.size(), 0);
    std::uint64_t rest = position.index;
    for (std::size_t d = tensor.shape.size(); d-- > 0;) {
        position.coordinates[d] = rest % tensor.shape[d];
        rest /= tensor.shape[d];
    }
    return position;
}

QString coordinatesText(const std::vector<std::uint64_t> &coordinates)
{
    QStringList parts;
    for (const auto c : coordinates)
        parts << QString::number(static_cast<qulonglong>(c));
    return u'[' + parts.join(u", "_s) + u']';
}

std::optional<QString> elementValueText(
    const SafetensorsFile &file, const TensorInfo &tensor, std::uint64_t index, bool *unreadable)
{
    // Elements repeat their bit alignment every lcm(bits, 8) bits: copy that group, decode the
    // element by its index inside the group.
    const unsigned bits = dtypeBits(tensor.dtype);
    const unsigned groupBits = std::lcm(bits, 8u);
    const std::uint64_t perGroup = groupBits / bits;
    const std::uint64_t groupBytes = groupBits / 8;
    const std::uint64_t group = index / perGroup;
    const auto bytes = file.tensorBytes(tensor);
    std::array<std::byte, 8> buffer {};
    if (groupBytes > buffer.size() || group >= bytes.size() / groupBytes)
        return std::nullopt;
    // pread rather than the mapping: see MappedFile::read.
    const std::uint64_t at = file.header().fileOffset(tensor) + group * groupBytes;
    if (file.mapping().read(at, std::span(buffer).first(groupBytes)) != groupBytes) {
        if (unreadable)
            *unreadable = true;
        return std::nullopt;
    }
    const auto groupSpan = std::span<const std::byte>(buffer).first(groupBytes);
    const std::uint64_t inGroup = index % perGroup;
    return toQString(formatElement(tensor.dtype, groupSpan, inGroup)) + u" ("_s
        + toQString(dtypeName(tensor.dtype)).toLower() + u' '
        + codeText(tensor.dtype, elementCode(tensor.dtype, groupSpan, inGroup)) + u')';
}

QString codeText(DType dtype, std::uint64_t code)
{
    const int digits = int((dtypeBits(dtype) + 3) / 4);
    return u"0x"_s + QString::number(static_cast<qulonglong>(code), 16).rightJustified(digits, u'0');
}

namespace {

ByteDescription tensorText(const SafetensorsFile &file, const TensorInfo &tensor, std::uint64_t offset,
    bool readBytes, bool *unreadable)
{
    ByteDescription d;
    d.location = u"tensor %1 (%2)"_s.arg(toQString(tensor.name), toQString(dtypeName(tensor.dtype)));
    const auto position = elementAtByte(tensor, offset - file.header().fileOffset(tensor));
    if (!position) {
        d.location += u", past its last element"_s;
        return d;
    }
    d.element = u"element "_s + coordinatesText(position->coordinates);
    if (readBytes) {
        if (const auto value = elementValueText(file, tensor, position->index, unreadable))
            d.element += u" = "_s + *value;
    }
    return d;
}

bool holds(const Header &header, const TensorInfo &tensor, std::uint64_t offset)
{
    const std::uint64_t begin = header.fileOffset(tensor);
    return begin >= header.dataStart && offset >= begin && offset - begin < tensor.byteLength();
}

} // namespace

ByteDescription describeByte(const SafetensorsFile &file, std::span<const Extent> extents,
    const TensorInfo *preferred, std::uint64_t offset, bool readBytes, bool *unreadable)
{
    const Header &header = file.header();
    const QString where = u"offset "_s + offsetText(offset) + u" — region: "_s;
    const auto inTensor = [&](ByteDescription d) {
        d.location.prepend(where);
        return d;
    };
    const auto only = [&](const QString &text) { return ByteDescription { where + text, {} }; };
    if (preferred && holds(header, *preferred, offset))
        return inTensor(tensorText(file, *preferred, offset, readBytes, unreadable));
    const auto i = extentAt(extents, offset);
    if (i < 0)
        return only(u"past the end of the file"_s);
    const Extent &extent = extents[static_cast<std::size_t>(i)];
    switch (extent.kind) {
    case Extent::Kind::LengthPrefix:
        return only(u"header length prefix (%1 bytes of header)"_s.arg(countText(header.headerLength)));
    case Extent::Kind::Header:
        return only(u"header"_s);
    case Extent::Kind::Padding:
        return only(u"header padding"_s);
    case Extent::Kind::Tensor:
    case Extent::Kind::Overlap: {
        const TensorInfo &tensor = header.tensors[static_cast<std::size_t>(extent.tensor)];
        ByteDescription d = tensorText(file, tensor, offset, readBytes, unreadable);
        if (extent.otherTensor >= 0)
            d.location = u"overlap: "_s + d.location + u", also claimed by "_s
                + toQString(header.tensors[static_cast<std::size_t>(extent.otherTensor)].name);
        return inTensor(std::move(d));
    }
    case Extent::Kind::Hole:
        return only(u"hole (no tensor claims these bytes)"_s);
    case Extent::Kind::Trailing:
        return only(u"trailing bytes after the last tensor"_s);
    case Extent::Kind::Missing:
        break;
    }
    return only(u"past the end of the file"_s);
}

QString describeExtent(const Header &header, const Extent &e)
{
    using Kind = Extent::Kind;
    const auto tr = [](const char *text) { return QCoreApplication::translate("stb::LayoutMapView", text); };
    const QString range
        = tr("bytes %1 – %2 (%3)").arg(offsetText(e.begin), offsetText(e.end), sizeText(e.size()));
    const auto name = [&](std::ptrdiff_t t) { return toQString(header.tensors[std::size_t(t)].name); };
    switch (e.kind) {
    case Kind::LengthPrefix:
        return tr("Header length prefix: %1 bytes of header\n%2").arg(countText(header.headerLength), range);
    case Kind::Header:
        return tr("Header JSON\n%1").arg(range);
    case Kind::Padding:
        return tr("Header padding (spaces after the JSON)\n%1").arg(range);
    case Kind::Tensor: {
        const TensorInfo &t = header.tensors[std::size_t(e.tensor)];
        const std::uint64_t begin = header.fileOffset(t);
        return tr("%1\n%2 %3\nbytes %4 – %5 (%6)")
            .arg(name(e.tensor), toQString(dtypeName(t.dtype)), shapeText(t.shape), offsetText(begin),
                offsetText(begin + t.byteLength()), sizeText(t.byteLength()));
    }
    case Kind::Hole:
        return tr("Hole: bytes no tensor claims\n%1").arg(range);
    case Kind::Overlap:
        return tr("Overlap: %1 and %2 claim the same bytes\n%3")
            .arg(name(e.tensor), name(e.otherTensor), range);
    case Kind::Trailing:
        return tr("Trailing bytes after the last tensor\n%1").arg(range);
    case Kind::Missing:
        return tr("Missing: %1 claims bytes past the end of the file (%2 bytes)\n%3")
            .arg(e.tensor >= 0 ? name(e.tensor) : tr("the header"), sizeText(header.fileSize), range);
    }
    return {};
}

} // namespace stb
