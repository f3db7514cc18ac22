// Memory for a huge shard index (issue 15, item 12): a model.safetensors.index.json of 1,000,000
// weight_map entries, all naming one small shard that holds none of them, so every entry is a
// problem. Target: under 300 bytes per entry plus the index's own size, in the browser and in
// `safetensors-inspect check --json`; the first 10,000 problems listed, the rest counted.
//   bench_index [FOLDER]     (offscreen unless DISPLAY is set)
#include "benchutil.h"

#include "core/format/writer.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/mainwindow.h"

#include <QApplication>
#include <QEventLoop>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace stb;

namespace {

constexpr std::size_t kEntries = 1'000'000;

// The index and its one shard in `folder`; returns the index's path.
std::string writeIndex(const std::string &folder)
{
    const std::string dir = folder + "/bench-index";
    std::filesystem::create_directories(dir);
    std::string error;
    const std::vector<TensorSpec> specs { { "a.weight", DType::F32, { 2 } } };
    writeFile(dir + "/s.safetensors", specs, {},
        [](std::size_t, std::span<std::byte> out) { std::fill(out.begin(), out.end(), std::byte { 0 }); }, error);
    const std::string path = dir + "/model.safetensors.index.json";
    std::ofstream out(path);
    out << R"({"metadata":{"total_size":8},"weight_map":{"a.weight":"s.safetensors")";
    for (std::size_t i = 0; i < kEntries; ++i)
        out << ",\"model.layers." << i / 384 << ".mlp.experts." << i % 128 << ".w" << i % 3
            << ".weight\":\"s.safetensors\"";
    out << "}}";
    return path;
}

// Peak resident kB of `safetensors-inspect check --json INDEX`, its output thrown away.
long inspectPeakKb(const std::string &index)
{
    std::fflush(stdout); // or the child prints what is buffered a second time
    const pid_t pid = fork();
    if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        execl(STB_INSPECT_PATH, STB_INSPECT_PATH, "check", "--json", index.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    int status = 0;
    rusage usage {};
    wait4(pid, &status, 0, &usage);
    return usage.ru_maxrss;
}

} // namespace

int main(int argc, char **argv)
{
    stb::bench::printKernels();
    if (!qEnvironmentVariableIsSet("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const std::string index = writeIndex(argc > 1 ? argv[1] : "/tmp");
    const double indexMb = static_cast<double>(std::filesystem::file_size(index)) / 1e6;
    std::printf("index: %zu entries, %.1f MB\n", kEntries, indexMb);

    const long cliKb = inspectPeakKb(index);
    std::printf("issue 15: check --json peak RSS %.1f MB = index + %.0f bytes per entry (target < 300)\n",
        cliKb / 1e3, (cliKb * 1e3 - indexMb * 1e6) / double(kEntries));

    MainWindow window;
    window.resize(1200, 760);
    window.show();
    app.processEvents();
    const long before = bench::statusKb("VmHWM");
    QEventLoop loop;
    QObject::connect(window.documents(), &DocumentArea::fileOpened, &loop, &QEventLoop::quit);
    QObject::connect(window.documents(), &DocumentArea::openFailed, &loop, &QEventLoop::quit);
    window.openFiles({ QString::fromStdString(index) });
    loop.exec();
    (void)window.grab(); // the diagnostics table painted
    const long after = bench::statusKb("VmHWM");
    std::printf("issue 15: browser peak RSS %.1f MB before opening, %.1f MB after: growth = index + %.0f bytes "
                "per entry (target < 300)\n",
        before / 1e3, after / 1e3, ((after - before) * 1e3 - indexMb * 1e6) / double(kEntries));
    std::filesystem::remove_all(std::filesystem::path(index).parent_path());
    return 0;
}
