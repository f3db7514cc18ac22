// The metadata pane: values that hold JSON unfold as a tree; values that only look like JSON,
// including arrays nested far deeper than any parser should recurse, stay plain text.
#include "core/io/checkpoint.h"
#include "core/format/writer.h"
#include "ui/document/metadatapane.h"

#include <QHeaderView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

QTreeWidgetItem *findItem(QTreeWidget *tree, const QString &key)
{
    for (QTreeWidgetItemIterator it(tree); *it; ++it) {
        if ((*it)->text(0) == key)
            return *it;
    }
    return nullptr;
}

} // namespace

class tst_MetadataPane : public QObject {
    Q_OBJECT

private slots:
    void jsonValuesUnfoldDeepOnesDoNot()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + u"/m.safetensors"_s).toStdString();
        const std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
        const Metadata metadata = {{"config", R"({"hidden": 64, "layers": [1, 2, {"act": "gelu"}]})"},
                                   {"deep", deep},
                                   {"format", "pt"},
                                   {"broken", "{\"a\": "}};
        const std::vector<TensorSpec> specs = {{"x", DType::U8, {1}}};
        std::string error;
        QVERIFY(writeFile(path, specs, std::vector<std::vector<std::byte>>{{std::byte{1}}}, metadata, error));
        const auto checkpoint = Checkpoint::open(path, error);
        QVERIFY(checkpoint);

        MetadataPane pane;
        pane.showFile(*checkpoint, 0); // must not recurse 200,000 levels

        QTreeWidgetItem *config = findItem(pane.tree(), u"config"_s);
        QVERIFY(config);
        QVERIFY(config->childCount() >= 2); // unfolded: hidden, layers
        QVERIFY(findItem(pane.tree(), u"act"_s));
        for (const auto &key : {u"deep"_s, u"format"_s, u"broken"_s}) {
            QTreeWidgetItem *item = findItem(pane.tree(), key);
            QVERIFY2(item, qPrintable(key));
            QCOMPARE(item->childCount(), 0); // plain text
        }
    }

    // Control and bidi characters in keys and values show escaped, as in tensor names: an
    // escape sequence or a newline showed as boxes or broke the one-line cell; a value of
    // nothing but controls is still held to the shown length.
    void controlCharactersEscaped()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + u"/c.safetensors"_s).toStdString();
        const Metadata metadata = { { "note", "\x1b[31mred\nline\u202Eevil" }, { "key\ttab", "v" },
            { "flood", std::string(5000, '\x07') } };
        const std::vector<TensorSpec> specs = { { "x", DType::U8, { 1 } } };
        std::string error;
        QVERIFY(writeFile(
            path, specs, std::vector<std::vector<std::byte>> { { std::byte { 1 } } }, metadata, error));
        const auto checkpoint = Checkpoint::open(path, error);
        QVERIFY(checkpoint);
        MetadataPane pane;
        pane.showFile(*checkpoint, 0);
        QTreeWidgetItem *note = findItem(pane.tree(), u"note"_s);
        QVERIFY(note);
        QCOMPARE(note->text(1), u"\\x1b[31mred\\x0aline\\u202eevil"_s);
        QTreeWidgetItem *tab = findItem(pane.tree(), u"key\\x09tab"_s);
        QVERIFY(tab);
        QCOMPARE(tab->text(1), u"v"_s);
        QTreeWidgetItem *flood = findItem(pane.tree(), u"flood"_s);
        QVERIFY(flood);
        QCOMPARE(flood->text(1), u"\\x07"_s.repeated(250) + u" … (4,000 more bytes)"_s);
    }

    // In the pane of a 1024 px window (about 400 px) the keys take what they need, at most 2/5,
    // and the values are whole: "15.0 GiB (16,060,556,576 bytes)" was cut behind a 260 px key
    // column. A long key is held to 2/5 and cut in the middle.
    void keyColumnLeavesValuesRoom()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + u"/m.safetensors"_s).toStdString();
        const std::vector<TensorSpec> specs = {{"x", DType::U8, {1}}};
        std::string error;
        QVERIFY(writeFile(path, specs, std::vector<std::vector<std::byte>>{{std::byte{1}}}, {{"format", "pt"}}, error));
        const auto checkpoint = Checkpoint::open(path, error);
        QVERIFY(checkpoint);
        MetadataPane pane;
        pane.resize(400, 300);
        pane.showFile(*checkpoint, 0);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTreeWidget *tree = pane.tree();
        const int keys = tree->header()->sectionSize(0);
        QVERIFY2(keys <= 160, qPrintable(QString::number(keys)));
        const QFontMetrics metrics = tree->fontMetrics();
        QVERIFY(keys >= metrics.horizontalAdvance(u"Header length"_s));
        QTreeWidgetItem *length = findItem(tree, u"Header length"_s);
        QVERIFY(length);
        QVERIFY2(tree->viewport()->width() - keys >= metrics.horizontalAdvance(length->text(1)),
            qPrintable(length->text(1)));

        const std::string longKeyPath = (dir.path() + u"/k.safetensors"_s).toStdString();
        QVERIFY(writeFile(longKeyPath, specs, std::vector<std::vector<std::byte>>{{std::byte{1}}},
            {{std::string(120, 'k'), "v"}}, error));
        const auto longKeys = Checkpoint::open(longKeyPath, error);
        QVERIFY(longKeys);
        pane.showFile(*longKeys, 0);
        QCOMPARE(tree->header()->sectionSize(0), 160);
        pane.resize(1000, 300);
        QVERIFY(tree->header()->sectionSize(0) > 160);
    }
};

QTEST_MAIN(tst_MetadataPane)
#include "tst_metadatapane.moc"
