// Writes the quantized seed files of the fuzz corpus (tests/fuzz/corpus/quant-*), one tiny file per
// scheme from the test fixtures, each under libFuzzer's 4 KiB input limit (run by hand when the
// fixtures change):   stb-make-quant-seeds tests/fuzz/corpus
#include "tests/support/quantfixtures.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: stb-make-quant-seeds CORPUS_FOLDER\n");
        return 2;
    }
    using namespace stb::test;
    const std::string folder = argv[1];
    const std::vector<std::pair<std::string, QuantFixture>> seeds = {
        { "quant-fp8-block", fp8Block("l.w", 8, 8, 4) },
        { "quant-fp8-channel", fp8Scaled("l.w", 4, 8, true) },
        { "quant-mxfp4", mxfp4("l.w", 2, 2) },
        { "quant-gptq4", gptq("l.w", 8, 16, 4, 8) },
        { "quant-gptq8-v2-actorder", gptq("l.w", 8, 8, 8, 4, true, true) },
        { "quant-awq", awq("l.w", 8, 16, 8) },
        { "quant-nf4-nested", bnb4("l.w", 4, 32, true, true) },
        { "quant-fp4", bnb4("l.w", 4, 16, false, false) },
        { "quant-int8", bnbInt8("l.w", 4, 8) },
        { "quant-pack", packQuantized("l.w", 4, 16, 8) },
    };
    for (const auto &[file, fixture] : seeds) {
        std::string error;
        if (!writeFixtures(folder + "/" + file, { fixture }, error)) {
            std::fprintf(stderr, "%s: %s\n", file.c_str(), error.c_str());
            return 1;
        }
    }
    return 0;
}
