// safetensors-browser: opens the files it is given, or the bundled sample model.
#include "ui/checkpointview.h"
#include "ui/documentarea.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"safetensors-browser"_s);
    QApplication::setApplicationName(u"safetensors-browser"_s);
    QApplication::setApplicationDisplayName(u"Safetensors Browser"_s);
    QApplication::setApplicationVersion(QString::fromLatin1(STB_VERSION));
    QApplication::setDesktopFileName(u"safetensors-browser"_s);

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Look inside .safetensors model checkpoints."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(u"FILE"_s,
        u"A .safetensors file or a *.safetensors.index.json (the sample model if none)."_s, u"[FILE...]"_s);
    const QCommandLineOption select(
        u"select"_s, u"Select the tensor or group of this dotted name in the first file."_s, u"NAME"_s);
    parser.addOption(select);
    parser.process(app);

    stb::MainWindow window;
    if (parser.positionalArguments().isEmpty())
        window.openSample();
    else
        window.openFiles(parser.positionalArguments());
    if (auto *view = window.documents()->viewAt(0); view && parser.isSet(select))
        view->selectPath(parser.value(select));
    window.show();
    // Without a window manager (Xvfb, some kiosks) nothing else makes the window active.
    window.raise();
    window.activateWindow();
    return app.exec();
}
