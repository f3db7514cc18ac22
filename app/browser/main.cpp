// safetensors-browser: opens the files it is given, or the bundled sample model.
#include "ui/common/darkpalette.h"
#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/compare/comparewindow.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/mainwindow.h"

#include "core/io/hugepageheap.h"
#include "core/io/openfilelimit.h"
#include "core/text/escape.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <memory>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    stb::useHugePagesForTheHeap(); // before any thread: a large model's names and shapes in few page faults
    stb::raiseOpenFileLimit(); // headroom for models of many shards and many tabs
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"safetensors-browser"_s);
    QApplication::setApplicationName(u"safetensors-browser"_s);
    QApplication::setApplicationDisplayName(u"Safetensors Browser"_s);
    QApplication::setApplicationVersion(QString::fromLatin1(STB_VERSION));
    QApplication::setDesktopFileName(QStringLiteral(STB_APP_ID)); // matches the installed .desktop file
    // Hidden (not in --help): a dark palette where the desktop offers none, for screenshots and
    // for checking that every pane reads on one.
    if (qEnvironmentVariableIsSet("STB_DARK_PALETTE"))
        stb::useDarkAppearance();

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Look inside .safetensors model checkpoints."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(u"FILE"_s,
        u"A .safetensors file or a *.safetensors.index.json (the sample model if none)."_s, u"[FILE...]"_s);
    const QCommandLineOption select(
        u"select"_s, u"Select the tensor or group of this dotted name in the first file."_s, u"NAME"_s);
    parser.addOption(select);
    const QCommandLineOption pane(u"pane"_s,
        u"Show this pane of the first file: overview, layout, hex, metadata, diagnostics, histogram, values, heatmap or depth."_s,
        u"NAME"_s);
    parser.addOption(pane);
    const QCommandLineOption compare(u"compare"_s, u"Compare two checkpoints side by side: --compare A B."_s);
    parser.addOption(compare);
    // From argv, not QApplication::arguments(): a path's bytes survive (core/text/pathbytes.h).
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << stb::pathToQString(argv[i]);
    parser.process(arguments);

    static const QStringList panes { u"overview"_s, u"layout"_s, u"hex"_s, u"metadata"_s, u"diagnostics"_s,
        u"histogram"_s, u"values"_s, u"heatmap"_s, u"depth"_s }; // in CheckpointView::Pane order
    // A pane we do not have is a usage error, said before any window opens.
    if (parser.isSet(pane) && !panes.contains(parser.value(pane))) {
        std::fprintf(stderr, "safetensors-browser: --pane takes one of: %s (not \"%s\")\n",
            qPrintable(panes.join(u", "_s)), stb::escapeText(parser.value(pane).toStdString()).c_str());
        return 2;
    }

    if (parser.isSet(compare)) {
        if (parser.positionalArguments().size() != 2)
            parser.showHelp(2);
        stb::CompareWindow window;
        window.openFiles(parser.positionalArguments()[0], parser.positionalArguments()[1]);
        if (parser.isSet(select))
            window.selectPath(parser.value(select));
        window.show();
        window.raise();
        window.activateWindow();
        return app.exec();
    }

    stb::MainWindow window;
    if (parser.positionalArguments().isEmpty())
        window.openSample();
    else
        window.openFiles(parser.positionalArguments());
    // Files open in the background: --select and --pane apply to the first one once it is in.
    const QString selected = parser.isSet(select) ? parser.value(select) : QString();
    const int paneIndex = panes.indexOf(parser.value(pane));
    auto applied = std::make_shared<bool>(false);
    stb::DocumentArea *documents = window.documents();
    QObject::connect(documents, &stb::DocumentArea::fileOpened, &window, [=] {
        auto *view = documents->viewAt(0);
        if (!view || *applied)
            return;
        *applied = true;
        if (!selected.isEmpty())
            view->selectPath(selected);
        if (paneIndex >= 0)
            view->setCurrentPane(static_cast<stb::CheckpointView::Pane>(paneIndex));
    });
    window.show();
    // Without a window manager (Xvfb, some kiosks) nothing else makes the window active.
    window.raise();
    window.activateWindow();
    return app.exec();
}
