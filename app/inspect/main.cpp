// safetensors-inspect: the same answers as the browser, as text or JSON, for scripts and CI.
#include "commands.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <clocale>
#include <cmath>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

const char *const kCommands = "Commands:\n"
                              "  check FILE...   is each file valid, as the reference implementation decides\n"
                              "  info FILE       summary, metadata, warnings and the table of tensors\n"
                              "  audit FILE      statistics of every tensor; flags NaN, Inf, all-zero, constant,\n"
                              "                  outliers (> 6 std) and duplicates; exit 1 on NaN or Inf\n"
                              "  diff A B        what changed between two checkpoints (--atol X --rtol Y)\n"
                              "  sha256 FILE...  SHA-256 of each file, as sha256sum prints it (the Hub's LFS id)\n"
                              "\nFILE is a .safetensors file or a sharded model's *.safetensors.index.json.\n"
                              "Exit status: 0 all valid, 1 something invalid, 2 usage error or unreadable path.";

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"safetensors-inspect"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(STB_VERSION));
    std::setlocale(LC_NUMERIC, "C"); // numbers in our output never follow the user's locale

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Inspect and validate .safetensors checkpoints.\n\n"_s
                                     + QString::fromUtf8(kCommands));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption jsonOption(u"json"_s, u"Print JSON instead of text."_s);
    parser.addOption(jsonOption);
    const QCommandLineOption binsOption(u"bins"_s, u"audit: histogram bins (default 10)."_s, u"N"_s, u"10"_s);
    parser.addOption(binsOption);
    const QCommandLineOption atolOption(u"atol"_s, u"diff: absolute tolerance."_s, u"X"_s);
    const QCommandLineOption rtolOption(u"rtol"_s, u"diff: relative tolerance."_s, u"Y"_s);
    parser.addOption(atolOption);
    parser.addOption(rtolOption);
    parser.addPositionalArgument(u"command"_s, u"check, info, audit, diff or sha256"_s);
    parser.addPositionalArgument(u"files"_s, u"The files to inspect."_s, u"FILE..."_s);

    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "safetensors-inspect: %s\nTry 'safetensors-inspect --help'.\n",
                     qPrintable(parser.errorText()));
        return stb::inspect::Usage;
    }
    if (parser.isSet(helpOption)) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return stb::inspect::Ok;
    }
    if (parser.isSet(versionOption)) {
        std::printf("safetensors-inspect %s\n", STB_VERSION);
        return stb::inspect::Ok;
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()) {
        std::fprintf(stderr, "safetensors-inspect: no command given\n%s\n", kCommands);
        return stb::inspect::Usage;
    }
    std::vector<std::string> files;
    for (qsizetype i = 1; i < positional.size(); ++i)
        files.push_back(QFile::encodeName(positional[i]).toStdString());
    stb::inspect::Options options;
    options.json = parser.isSet(jsonOption);
    bool binsOk = false;
    const uint bins = parser.value(binsOption).toUInt(&binsOk);
    if (!binsOk || bins < 1 || bins > 100000) {
        std::fprintf(stderr, "safetensors-inspect: --bins takes a number from 1 to 100000\n");
        return stb::inspect::Usage;
    }
    options.bins = bins;
    for (const auto &[option, target] : {std::pair{&atolOption, &options.atol}, std::pair{&rtolOption, &options.rtol}}) {
        if (!parser.isSet(*option))
            continue;
        bool ok = false;
        *target = parser.value(*option).toDouble(&ok);
        if (!ok || !(*target >= 0) || std::isinf(*target)) {
            std::fprintf(stderr, "safetensors-inspect: --%s takes a non-negative number\n",
                         qPrintable(option->names().front()));
            return stb::inspect::Usage;
        }
        options.tolerances = true;
    }

    const QString command = positional.front();
    if (command == u"check"_s) {
        if (files.empty()) {
            std::fprintf(stderr, "safetensors-inspect check: no FILE given\n");
            return stb::inspect::Usage;
        }
        return stb::inspect::runCheck(files, options);
    }
    if (command == u"info"_s) {
        if (files.size() != 1) {
            std::fprintf(stderr, "safetensors-inspect info: give exactly one FILE\n");
            return stb::inspect::Usage;
        }
        return stb::inspect::runInfo(files.front(), options);
    }
    if (command == u"audit"_s) {
        if (files.size() != 1) {
            std::fprintf(stderr, "safetensors-inspect audit: give exactly one FILE\n");
            return stb::inspect::Usage;
        }
        return stb::inspect::runAudit(files.front(), options);
    }
    if (command == u"diff"_s) {
        if (files.size() != 2) {
            std::fprintf(stderr, "safetensors-inspect diff: give exactly two files, A and B\n");
            return stb::inspect::Usage;
        }
        return stb::inspect::runDiff(files[0], files[1], options);
    }
    if (command == u"sha256"_s) {
        if (files.empty()) {
            std::fprintf(stderr, "safetensors-inspect sha256: no FILE given\n");
            return stb::inspect::Usage;
        }
        return stb::inspect::runSha256(files);
    }
    std::fprintf(stderr, "safetensors-inspect: unknown command '%s'\n%s\n", qPrintable(command), kCommands);
    return stb::inspect::Usage;
}
