// Header benchmark: a checkpoint with 100,000 tensors (a sparse file: the data region is never
// read), timed through parseHeader, through opening it, through `safetensors-inspect info`, and
// against Python's json.loads on the same header bytes, all in one run.
//   bench_header [FOLDER]
#include "benchutil.h"

using stb::bench::capture;
using stb::bench::medianMs;

#include "core/io/checkpoint.h"
#include "core/format/header.h"
#include "core/format/writer.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace stb;

namespace {

// Names and shapes like a large transformer's, 100,000 of them.
std::vector<TensorSpec> manyTensors(std::size_t count)
{
    static const char *const parts[] = {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
                                        "self_attn.o_proj.weight", "mlp.gate_proj.weight",    "mlp.up_proj.weight",
                                        "mlp.down_proj.weight",    "input_layernorm.weight",  "post_attention_layernorm.weight",
                                        "self_attn.q_norm.weight"};
    std::vector<TensorSpec> specs;
    specs.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t part = i % 10;
        const bool norm = part >= 7;
        specs.push_back({"model.layers." + std::to_string(i / 10) + "." + parts[part],
                         norm ? DType::F32 : DType::BF16,
                         norm ? std::vector<std::uint64_t>{64} : std::vector<std::uint64_t>{64, 128}});
    }
    return specs;
}

} // namespace

int main(int argc, char **argv)
{
    stb::bench::printKernels();
    const std::string folder = argc > 1 ? argv[1] : "/tmp";
    const std::string path = folder + "/bench-100k.safetensors";
    const std::size_t count = 100'000;

    FileLayout layout;
    std::string error;
    const auto specs = manyTensors(count);
    if (!planFile(specs, {{"format", "pt"}}, layout, error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(layout.prefix.data()), static_cast<std::streamsize>(layout.prefix.size()));
    }
    if (::truncate(path.c_str(), static_cast<off_t>(layout.prefix.size() + layout.dataSize)) != 0)
        return 1;
    const std::size_t headerBytes = layout.prefix.size() - 8;
    std::printf("file: %s, %zu tensors, header %.1f MB, data %.1f GB (sparse)\n", path.c_str(), count,
                headerBytes / 1e6, layout.dataSize / 1e9);

    std::size_t tensors = 0;
    const double parseMs = medianMs(15, [&] {
        const Header header = parseHeader(layout.prefix, layout.prefix.size() + layout.dataSize);
        tensors = header.valid() ? header.tensors.size() : 0;
    });
    if (tensors != count) {
        std::fprintf(stderr, "the benchmark file did not validate\n");
        return 1;
    }
    const double openMs = medianMs(15, [&] { (void)Checkpoint::open(path, error); });
    const std::string inspect = std::string(STB_INSPECT_PATH) + " info --json " + path + " > /dev/null";
    const double infoJsonMs = medianMs(5, [&] { (void)std::system(inspect.c_str()); });
    const std::string inspectText = std::string(STB_INSPECT_PATH) + " info " + path + " > /dev/null";
    const double infoTextMs = medianMs(5, [&] { (void)std::system(inspectText.c_str()); });
    const std::string checkCommand = std::string(STB_INSPECT_PATH) + " check " + path + " > /dev/null";
    const double checkMs = medianMs(5, [&] { (void)std::system(checkCommand.c_str()); });

    // Python's json.loads on exactly the header bytes (median of 15, in the same run).
    const std::string python = "python3 -c \"import json,time,statistics\n"
                               "b=open('" + path + "','rb').read(8+" + std::to_string(headerBytes) + ")[8:]\n"
                               "ts=[]\n"
                               "for _ in range(15):\n"
                               "    t=time.perf_counter(); json.loads(b); ts.append(time.perf_counter()-t)\n"
                               "print(statistics.median(ts)*1000)\"";
    const double pythonMs = std::stod(capture(python));

    std::printf("parseHeader (parse + validate, in memory):  %8.1f ms\n", parseMs);
    std::printf("Checkpoint::open (mmap, copy, parse):       %8.1f ms\n", openMs);
    std::printf("safetensors-inspect check (process):        %8.1f ms\n", checkMs);
    std::printf("safetensors-inspect info --json (process):  %8.1f ms\n", infoJsonMs);
    std::printf("safetensors-inspect info (text, process):   %8.1f ms\n", infoTextMs);
    std::printf("python3 json.loads (same header bytes):     %8.1f ms\n", pythonMs);
    std::printf("ratio json.loads / parseHeader:              %8.1fx (target >= 3x)\n", pythonMs / parseMs);
    std::printf("target parse + validate < 150 ms:            %s\n", parseMs < 150 ? "met" : "MISSED");
    return 0;
}
