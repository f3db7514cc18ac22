// libFuzzer entry for the config.json reader: any bytes as config.json text must give a
// QuantConfig, "no quantization_config", or a reason, never a crash, deep recursion or a hang.
#include "core/quant/quantconfig.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::string error;
    const auto config = stb::parseQuantConfig(text, error);
    if (config && !error.empty())
        __builtin_trap(); // a config is either read or refused, not both
    (void)stb::jsonShallowEnough(text, 64);
    return 0;
}
