#include "core/stats/kernels/kernelchoice.h"

#include "core/stats/kernels/avx512.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stb::kernels {

KernelRequestParse parseKernelRequest(const char *value)
{
    if (!value || !*value || std::strcmp(value, "auto") == 0)
        return { KernelRequest::Auto, {} };
    if (std::strcmp(value, "portable") == 0)
        return { KernelRequest::Portable, {} };
    if (std::strcmp(value, "avx512") == 0)
        return { KernelRequest::Avx512, {} };
    // The value is the user's own, but bounded and escaped all the same: it goes to a terminal.
    std::string shown;
    for (const char *c = value; *c && shown.size() < 40; ++c) {
        const auto byte = static_cast<unsigned char>(*c);
        if (byte >= 0x20 && byte < 0x7F) {
            shown += *c;
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", byte);
            shown += hex;
        }
    }
    if (std::strlen(value) > 40)
        shown += "...";
    return { KernelRequest::Auto,
        "STB_KERNELS=" + shown + " is not one of auto, portable, avx512; using auto" };
}

bool avx512WantedAtStart(bool supported)
{
    KernelRequestParse parse = parseKernelRequest(std::getenv("STB_KERNELS"));
    if (parse.request == KernelRequest::Avx512 && !supported)
        parse.warning = "STB_KERNELS=avx512: this CPU lacks AVX-512 (F, BW, DQ, VL); using the portable kernels";
    if (!parse.warning.empty())
        std::fprintf(stderr, "%s\n", parse.warning.c_str());
    return supported && parse.request != KernelRequest::Portable;
}

const char *activeKernelName()
{
    return avx512::enabled() ? "avx512" : "portable";
}

} // namespace stb::kernels
