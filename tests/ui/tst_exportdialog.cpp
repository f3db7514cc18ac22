// The Export dialog: a tensor written in the background (whole, the Values pane's plane, a
// slice) reads back as the .npy core would write, narrow floats converted or raw; CSV refused
// beyond the chosen limit and for more than two axes, with the reason and no file; a write that
// fails (read-only folder, a full disk) says why and leaves nothing; the menus reach it.
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "core/values/npyexport.h"
#include "ui/document/checkpointview.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebar.h"
#include "ui/values/exportdialog.h"
#include "ui/values/planeselector.h"
#include "ui/values/valuespane.h"

#include "tests/support/valuedata.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QMenuBar>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

class tst_ExportDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void writesNpy_data();
    void writesNpy();
    void narrowFloats();
    void csvLimits();
    void failureLeavesNoFile();
    void openedFromTheView();
    void menuShortcutIsFree();

private:
    const Checkpoint::Tensor &tensor(const std::string &name) const;
    // Runs the dialog's export to the end; true when it wrote the file.
    static bool runExport(ExportDialog &dialog, QString *reason = nullptr);
    static QByteArray readAll(const QString &path);
    // The .npy of cube elements `elements` (flat indices) in an array of `shape`.
    static QByteArray cubeNpy(std::vector<std::uint64_t> shape, const QList<int> &elements);

    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_checkpoint;
};

void tst_ExportDialog::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::vector<float> cube(2 * 3 * 4);
    for (std::size_t i = 0; i < cube.size(); ++i)
        cube[i] = float(i) - 3.5f;
    // BF16 codes: 1.0, NaN, +Inf, -2.0
    const std::vector<TensorSpec> specs { { "cube", DType::F32, { 2, 3, 4 } },
        { "bf", DType::BF16, { 2, 2 } }, { "line", DType::I8, { 5 } } };
    const std::vector<std::vector<std::byte>> data { test::floatBytes(cube),
        test::packCodes(DType::BF16, { 0x3F80, 0x7FC0, 0x7F80, 0xC000 }),
        { std::byte(1), std::byte(0x80), std::byte(3), std::byte(0), std::byte(0x7F) } };
    const std::string path = m_dir.filePath(u"e.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {}, error), error.c_str());
    m_checkpoint = Checkpoint::open(path, error);
    QVERIFY2(m_checkpoint, error.c_str());
}

const Checkpoint::Tensor &tst_ExportDialog::tensor(const std::string &name) const
{
    for (const auto &t : m_checkpoint->tensors()) {
        if (t.info->name == name)
            return t;
    }
    qFatal("no tensor %s", name.c_str());
}

bool tst_ExportDialog::runExport(ExportDialog &dialog, QString *reason)
{
    QSignalSpy exported(&dialog, &ExportDialog::exported);
    QSignalSpy failed(&dialog, &ExportDialog::failed);
    // Refused choices fail at once; a write ends in exported or failed (the dialog may be gone).
    dialog.startExport();
    // A time-out leaves both empty: the export then counts as not done.
    (void)QTest::qWaitFor([&] { return exported.count() + failed.count() > 0; }, 20000);
    if (reason)
        *reason = failed.isEmpty() ? QString() : failed.first().first().toString();
    return exported.count() == 1 && failed.isEmpty();
}

QByteArray tst_ExportDialog::readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray tst_ExportDialog::cubeNpy(std::vector<std::uint64_t> shape, const QList<int> &elements)
{
    QByteArray npy = QByteArray::fromStdString(npyHeader("<f4", shape));
    for (int e : elements) {
        const float value = float(e) - 3.5f;
        npy.append(reinterpret_cast<const char *>(&value), sizeof value);
    }
    return npy;
}

void tst_ExportDialog::writesNpy_data()
{
    QTest::addColumn<int>("scope");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<int>("fixedFirst"); // the Values pane's plane: cube[fixedFirst, :, :]; -1: none given
    QTest::addColumn<QList<int>>("shape");
    QTest::addColumn<QList<int>>("elements"); // flat indices into the cube, in the file's order
    QTest::newRow("whole") << int(ExportDialog::Scope::Whole) << QString() << -1 << QList<int> { 2, 3, 4 }
                           << [] {
                                  QList<int> all;
                                  for (int i = 0; i < 24; ++i)
                                      all << i;
                                  return all;
                              }();
    QTest::newRow("default plane") << int(ExportDialog::Scope::Plane) << QString() << -1
                                   << QList<int> { 3, 4 }
                                   << QList<int> { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    QTest::newRow("pane's plane") << int(ExportDialog::Scope::Plane) << QString() << 1 << QList<int> { 3, 4 }
                                  << QList<int> { 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 };
    QTest::newRow("slice") << int(ExportDialog::Scope::Slice) << u"1, :, 1:4:2"_s << -1 << QList<int> { 3, 2 }
                           << QList<int> { 13, 15, 17, 19, 21, 23 };
}

void tst_ExportDialog::writesNpy()
{
    QFETCH(int, scope);
    QFETCH(QString, slice);
    QFETCH(int, fixedFirst);
    QFETCH(QList<int>, shape);
    QFETCH(QList<int>, elements);
    const auto &cube = tensor("cube");
    std::optional<StridedView> plane;
    if (fixedFirst >= 0) {
        PlaneSelector selector;
        selector.setShape(cube.info->shape);
        selector.setFixedFrom({ std::uint64_t(fixedFirst), 0, 0 });
        plane = selector.view();
    }
    ExportDialog dialog(m_checkpoint, cube, plane);
    dialog.setScope(ExportDialog::Scope(scope));
    dialog.setSliceText(slice);
    const QString path
        = m_dir.filePath(u"%1.npy"_s.arg(QLatin1StringView(QTest::currentDataTag())).replace(u' ', u'_'));
    dialog.setTarget(path);
    QString reason;
    QVERIFY2(runExport(dialog, &reason), qPrintable(reason));

    std::vector<std::uint64_t> dims;
    for (int d : shape)
        dims.push_back(std::uint64_t(d));
    QCOMPARE(readAll(path), cubeNpy(dims, elements));
}

void tst_ExportDialog::narrowFloats()
{
    const auto &bf = tensor("bf");
    ExportDialog dialog(m_checkpoint, bf, std::nullopt);
    QVERIFY(dialog.rawBox()->isEnabled());
    QVERIFY2(dialog.conversionText().contains(u"float32"_s), qPrintable(dialog.conversionText()));
    const QString values = m_dir.filePath(u"bf.npy"_s);
    dialog.setTarget(values);
    QVERIFY(runExport(dialog));
    QByteArray expected = QByteArray::fromStdString(npyHeader("<f4", std::vector<std::uint64_t> { 2, 2 }));
    for (std::uint32_t bits : { 0x3F800000u, 0x7FC00000u, 0x7F800000u, 0xC0000000u })
        expected.append(reinterpret_cast<const char *>(&bits), 4);
    QCOMPARE(readAll(values), expected);

    ExportDialog rawDialog(m_checkpoint, bf, std::nullopt);
    rawDialog.setRaw(true);
    QVERIFY2(rawDialog.conversionText().contains(u"raw codes"_s), qPrintable(rawDialog.conversionText()));
    const QString codes = m_dir.filePath(u"bf-raw.npy"_s);
    rawDialog.setTarget(codes);
    QVERIFY(runExport(rawDialog));
    QByteArray rawExpected = QByteArray::fromStdString(npyHeader("<u2", std::vector<std::uint64_t> { 2, 2 }));
    for (std::uint16_t code : { 0x3F80, 0x7FC0, 0x7F80, 0xC000 })
        rawExpected.append(reinterpret_cast<const char *>(&code), 2);
    QCOMPARE(readAll(codes), rawExpected);

    // A dtype NumPy has: nothing to choose, nothing converted.
    ExportDialog f32(m_checkpoint, tensor("cube"), std::nullopt);
    QVERIFY(!f32.rawBox()->isEnabled());
    QVERIFY(f32.conversionText().isEmpty());
}

void tst_ExportDialog::csvLimits()
{
    const auto &cube = tensor("cube");
    ExportDialog dialog(m_checkpoint, cube, std::nullopt);
    dialog.setFormat(ExportDialog::Format::Csv);
    QVERIFY2(dialog.target().endsWith(u".csv"_s), qPrintable(dialog.target()));
    const QString path = m_dir.filePath(u"plane.csv"_s);
    dialog.setTarget(path);

    // The plane has 12 values: over a limit of 5 the dialog says so and writes nothing.
    dialog.setCsvLimit(5);
    QVERIFY(dialog.messageText().contains(u"more than the CSV limit of 5"_s));
    QString reason;
    QVERIFY(!runExport(dialog, &reason));
    QVERIFY2(reason.contains(u"12 values, more than the CSV limit of 5"_s), qPrintable(reason));
    QVERIFY(!QFile::exists(path));

    // Three axes never fit a CSV, whatever the limit.
    dialog.setCsvLimit(100);
    dialog.setScope(ExportDialog::Scope::Whole);
    QVERIFY(!runExport(dialog, &reason));
    QVERIFY2(reason.contains(u"1-D or 2-D"_s), qPrintable(reason));
    QVERIFY(!QFile::exists(path));

    dialog.setScope(ExportDialog::Scope::Plane);
    QVERIFY(runExport(dialog, &reason));
    QCOMPARE(readAll(path), QByteArray("-3.5,-2.5,-1.5,-0.5\n0.5,1.5,2.5,3.5\n4.5,5.5,6.5,7.5\n"));

    ExportDialog bad(m_checkpoint, cube, std::nullopt);
    bad.setSliceText(u"0, 9"_s);
    bad.setScope(ExportDialog::Scope::Slice);
    QVERIFY(!runExport(bad, &reason));
    QVERIFY2(reason.startsWith(u"The slice is not valid"_s), qPrintable(reason));
}

void tst_ExportDialog::failureLeavesNoFile()
{
    const auto &line = tensor("line");
    QString reason;
    // A full disk (a file-size limit stands in for it; it stops root too): the reason, no file.
    {
        QTemporaryDir full;
        ExportDialog dialog(m_checkpoint, line, std::nullopt);
        dialog.setTarget(full.filePath(u"line.npy"_s));
        struct rlimit old { };
        getrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = old;
        small.rlim_cur = 64; // the .npy header fits, the data does not
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        const bool written = runExport(dialog, &reason);
        setrlimit(RLIMIT_FSIZE, &old);
        QVERIFY(!written);
        QVERIFY2(reason.startsWith(u"cannot write "_s), qPrintable(reason));
        QCOMPARE(dialog.messageText(), reason);
        QCOMPARE(QDir(full.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    }
    // A read-only folder (root writes anyway: then only the case above tells).
    QTemporaryDir readOnly;
    QVERIFY(QFile::setPermissions(readOnly.path(), QFile::ReadOwner | QFile::ExeOwner));
    ExportDialog dialog(m_checkpoint, line, std::nullopt);
    dialog.setTarget(readOnly.filePath(u"line.npy"_s));
    const bool written = runExport(dialog, &reason);
    QFile::setPermissions(readOnly.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    if (geteuid() == 0 && written)
        QSKIP("running as root: a read-only folder does not stop writes (the full disk above was checked)");
    QVERIFY(!written);
    QVERIFY2(reason.contains(u"Permission denied"_s), qPrintable(reason));
    QCOMPARE(QDir(readOnly.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
}

void tst_ExportDialog::openedFromTheView()
{
    CheckpointView view(m_checkpoint, u"e"_s);
    QVERIFY(!view.exportTensor()); // nothing selected: a message, no dialog
    QVERIFY2(view.messageBar()->text().contains(u"Select a tensor"_s), qPrintable(view.messageBar()->text()));
    QVERIFY(view.selectPath(u"cube"_s));
    view.setCurrentPane(CheckpointView::ValuesTab);
    view.valuesPane()->planeSelector()->setFixedFrom({ 1, 0, 0 });
    ExportDialog *dialog = view.exportTensor();
    QVERIFY(dialog);
    // The plane the Values pane shows, cube[1, :, :], is the default choice.
    QPointer<ExportDialog> guard(dialog);
    const QString path = m_dir.filePath(u"fromview.npy"_s);
    dialog->setTarget(path);
    QVERIFY(runExport(*dialog));
    QCOMPARE(readAll(path), cubeNpy({ 3, 4 }, { 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 }));
    QTRY_VERIFY(guard.isNull()); // closed and deleted once written
    QVERIFY2(view.messageBar()->text().startsWith(u"Exported to"_s), qPrintable(view.messageBar()->text()));
}

void tst_ExportDialog::menuShortcutIsFree()
{
    MainWindow window;
    QHash<QKeySequence, QString> owners;
    QAction *exportAction = nullptr;
    std::function<void(QMenu *)> walk = [&](QMenu *menu) {
        for (QAction *action : menu->actions()) {
            if (action->menu())
                walk(action->menu());
            if (action->text() == u"&Export Tensor…"_s)
                exportAction = action;
            if (action->shortcut().isEmpty())
                continue;
            QVERIFY2(!owners.contains(action->shortcut()),
                qPrintable(owners.value(action->shortcut()) + u" and "_s + action->text()));
            owners.insert(action->shortcut(), action->text());
        }
    };
    for (QAction *top : window.menuBar()->actions())
        walk(top->menu());
    QVERIFY(exportAction);
    QCOMPARE(exportAction->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
}

QTEST_MAIN(tst_ExportDialog)
#include "tst_exportdialog.moc"
