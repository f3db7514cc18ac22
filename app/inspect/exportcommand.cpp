#include "command.h"
#include "progressline.h"
#include "tensorselection.h"

#include "core/io/scannedpages.h"
#include "core/quant/dequantexport.h"
#include "core/text/textformat.h"
#include "core/values/npyexport.h"

#include <cstdio>
#include <functional>

#include <sys/stat.h>
#include <unistd.h>

namespace stb::inspect {

namespace {

const OptionSpec kExportOptions[] = {
    { "o", "OUT.npy",
        "The file to write (required); replaced atomically, never the source. A link's file is "
        "written, a device or FIFO (/dev/stdout) written to." },
    { "raw", "",
        "BF16, F8, F4 and F6 as their integer codes (uint16/uint8) instead of float32 values; a "
        "quantized weight as its stored codes tensor instead of dequantized float32." },
    kSliceOption,
};

// Whether `path` is the file standard output writes to (-o /dev/stdout, or a path the shell
// redirected stdout to), not a character device (a terminal or /dev/null takes any mix): the
// line saying what was written then goes to stderr, so the bytes there are the .npy's alone.
bool isStandardOutput(const std::string &path)
{
    struct stat out {
    }, file {};
    return ::fstat(STDOUT_FILENO, &out) == 0 && ::stat(path.c_str(), &file) == 0 && !S_ISCHR(out.st_mode)
        && out.st_dev == file.st_dev && out.st_ino == file.st_ino;
}

int runExport(const Invocation &invocation)
{
    if (!invocation.isSet("o"))
        return usageError(invocation.command(), "give the file to write with -o OUT.npy");
    const std::string out = invocation.value("o");
    const bool raw = invocation.isSet("raw");
    const auto selected = selectTensor(invocation, !raw);
    if (!selected)
        return Findings;
    const DType dtype = selected->info->dtype;

    std::string error;
    bool written = false;
    {
        ProgressLine progress("writing " + out, 1u << 24);
        const ScannedPages pages(selected->file->mapping(), selected->bytes); // cached before stays
        written = selected->dequantized ? exportDequantizedNpy(out, selected->file->path(),
                      *selected->dequantized->dequantizer, selected->view, error, {}, std::ref(progress))
                                        : exportNpy(out, selected->file->path(), dtype, selected->bytes,
                                            selected->view, raw, error, {}, std::ref(progress));
        pages.release();
    }
    if (!written) {
        std::fprintf(stderr, "%s: %s\n", printable(out).c_str(), error.c_str());
        return Findings;
    }
    std::FILE *const report = isStandardOutput(out) ? stderr : stdout;
    if (selected->dequantized) {
        const QuantizedWeight &w = *selected->dequantized->weight;
        std::fprintf(report,
            "%s: '%s' %s %s as %s; %s %u-bit codes of '%s' dequantized to float32 (--raw writes the "
            "codes)\n",
            printable(out).c_str(), printable(w.name).c_str(), std::string(quantSchemeName(w.scheme)).c_str(),
            formatShape(selected->view.shape()).c_str(), kDequantizedNpyDescr,
            std::string(quantSchemeName(w.scheme)).c_str(), w.bits, printable(selected->info->name).c_str());
        return Ok;
    }
    const NpyEncoding encoding = npyEncoding(dtype, raw);
    std::fprintf(report, "%s: '%s' %s %s as %s%s%s\n", printable(out).c_str(),
        printable(selected->info->name).c_str(), std::string(dtypeName(dtype)).c_str(),
        formatShape(selected->view.shape()).c_str(), encoding.descr.c_str(),
        encoding.note.empty() ? "" : "; ", encoding.note.c_str());
    return Ok;
}

} // namespace

extern const Command kExportCommand {
    .name = "export",
    .operands = "FILE NAME",
    .minFiles = 2,
    .maxFiles = 2,
    .summary = "write a tensor (or a --slice of it) to a NumPy .npy file",
    .help = "Writes tensor NAME of FILE, or the part --slice selects, to a .npy file (format 1.0,\n"
            "little-endian, C order) that numpy.load reads. Types NumPy has are written as they are;\n"
            "BF16, the F8 family, F4 and F6 become float32 values (exactly), or with --raw their\n"
            "integer codes (uint16 for BF16, one uint8 per element otherwise).\n\n"
            "A recognised quantized weight (docs/quantization.md), named by its logical name or by its\n"
            "codes tensor, is written dequantized as float32 in its logical shape (--slice applies to\n"
            "that shape); --raw writes the stored codes tensor as it is.\n\n"
            "The file is written to a temporary name beside OUT.npy and renamed when complete: a\n"
            "failure leaves no partial file.\n\n"
            "Exit status: 0 written; 1 unknown tensor, bad slice, unreadable bytes or cannot write;\n"
            "2 usage error.",
    .options = kExportOptions,
    .run = runExport,
};

} // namespace stb::inspect
