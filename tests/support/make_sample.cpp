// Writes the sample checkpoint bundled in resources/sample/ (run by hand when it must change):
//   stb-make-sample resources/sample/sample.safetensors
#include "tests/support/testfiles.h"

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: stb-make-sample OUTPUT\n");
        return 2;
    }
    const auto model = stb::test::makeSampleModel(4, 32);
    std::string error;
    if (!stb::writeFile(argv[1], model.specs, model.data, model.metadata, error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    return 0;
}
