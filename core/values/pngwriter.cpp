#include "core/values/pngwriter.h"

#include <zlib.h>

#include <array>

namespace stb {

namespace {

void appendBigEndian(std::string &out, std::uint32_t value)
{
    out += static_cast<char>(value >> 24);
    out += static_cast<char>(value >> 16);
    out += static_cast<char>(value >> 8);
    out += static_cast<char>(value);
}

// A chunk: length, type, data, and the CRC-32 of type and data.
void appendChunk(std::string &out, const char (&type)[5], const std::string &data)
{
    appendBigEndian(out, static_cast<std::uint32_t>(data.size()));
    const std::size_t typeAt = out.size();
    out.append(type, 4);
    out += data;
    const auto *crcStart = reinterpret_cast<const Bytef *>(out.data() + typeAt);
    appendBigEndian(out,
        static_cast<std::uint32_t>(
            crc32(crc32(0, nullptr, 0), crcStart, static_cast<uInt>(out.size() - typeAt))));
}

// The zlib stream of the rows, each behind its filter byte 0 (none), deflated one row at a time
// so no filtered copy of the whole picture is made.
bool deflateRows(std::span<const Rgb> pixels, std::uint32_t width, std::uint32_t height, std::string &out)
{
    z_stream stream {};
    if (deflateInit(&stream, Z_DEFAULT_COMPRESSION) != Z_OK)
        return false;
    std::array<Bytef, 64 * 1024> buffer;
    const std::size_t rowBytes = std::size_t(width) * 3;
    bool ok = true;
    const auto feed = [&](const void *data, std::size_t size, int flush) {
        stream.next_in = const_cast<Bytef *>(static_cast<const Bytef *>(data));
        stream.avail_in = static_cast<uInt>(size);
        do {
            stream.next_out = buffer.data();
            stream.avail_out = static_cast<uInt>(buffer.size());
            const int result = deflate(&stream, flush);
            if (result == Z_STREAM_ERROR) { // Z_BUF_ERROR only means no progress was possible
                ok = false;
                return;
            }
            out.append(reinterpret_cast<const char *>(buffer.data()), buffer.size() - stream.avail_out);
        } while (stream.avail_out == 0);
    };
    const unsigned char noFilter = 0;
    for (std::uint32_t row = 0; row < height && ok; ++row) {
        feed(&noFilter, 1, Z_NO_FLUSH);
        feed(pixels.data() + std::size_t(row) * width, rowBytes, row + 1 == height ? Z_FINISH : Z_NO_FLUSH);
    }
    deflateEnd(&stream);
    return ok;
}

} // namespace

std::string encodePng(std::span<const Rgb> pixels, std::uint32_t width, std::uint32_t height)
{
    if (width == 0 || height == 0 || width >= (1u << 31) || height >= (1u << 31)
        || pixels.size() != std::size_t(width) * height)
        return {};
    std::string header;
    appendBigEndian(header, width);
    appendBigEndian(header, height);
    header += "\x08\x02"; // 8 bits per channel, colour type 2: RGB
    header.append(3, '\0'); // deflate, adaptive filtering (here always "none"), no interlace
    std::string rows;
    if (!deflateRows(pixels, width, height, rows))
        return {};
    std::string png("\x89PNG\r\n\x1a\n", 8);
    appendChunk(png, "IHDR", header);
    appendChunk(png, "IDAT", rows);
    appendChunk(png, "IEND", {});
    return png;
}

} // namespace stb
