// The shortest suffixes that still tell names apart (the layout map's block labels).
#include "core/text/uniquesuffix.h"

#include <QTest>

#include <string>
#include <vector>

using namespace stb;
using namespace Qt::StringLiterals;

class tst_UniqueSuffix : public QObject {
    Q_OBJECT

private slots:
    void suffixes_data();
    void suffixes();
    void longNamesStayLinear();
    void compact_data();
    void compact();
};

void tst_UniqueSuffix::suffixes_data()
{
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("none") << QStringList() << QStringList();
    QTest::newRow("one name: its last segment")
        << QStringList { u"model.norm.weight"_s } << QStringList { u"weight"_s };
    QTest::newRow("siblings differ in the second segment from the end") << QStringList {
        u"model.layers.0.self_attn.k_proj.weight"_s, u"model.layers.0.self_attn.v_proj.weight"_s
    } << QStringList { u"k_proj.weight"_s, u"v_proj.weight"_s };
    QTest::newRow("the same role in two layers")
        << QStringList { u"model.layers.0.mlp.up_proj.weight"_s, u"model.layers.1.mlp.up_proj.weight"_s,
               u"model.layers.1.mlp.down_proj.weight"_s }
        << QStringList { u"0.mlp.up_proj.weight"_s, u"1.mlp.up_proj.weight"_s, u"down_proj.weight"_s };
    QTest::newRow("weight and bias") << QStringList { u"fc.weight"_s, u"fc.bias"_s, u"head.bias"_s }
                                     << QStringList { u"weight"_s, u"fc.bias"_s, u"head.bias"_s };
    QTest::newRow("a name that is another's suffix: whole names")
        << QStringList { u"weight"_s, u"a.weight"_s } << QStringList { u"weight"_s, u"a.weight"_s };
    QTest::newRow("a duplicate: whole names")
        << QStringList { u"x.y"_s, u"x.y"_s, u"z.y"_s } << QStringList { u"x.y"_s, u"x.y"_s, u"z.y"_s };
    QTest::newRow("segment boundaries, not characters")
        << QStringList { u"a.xweight"_s, u"b.weight"_s } << QStringList { u"xweight"_s, u"weight"_s };
    QTest::newRow("no separator") << QStringList { u"alpha"_s, u"beta"_s }
                                  << QStringList { u"alpha"_s, u"beta"_s };
    QTest::newRow("empty segments") << QStringList { u"a..b"_s, u".b"_s, u""_s }
                                    << QStringList { u"a..b"_s, u".b"_s, u""_s };
    QTest::newRow("trailing separator")
        << QStringList { u"a.b."_s, u"a.c."_s } << QStringList { u"b."_s, u"c."_s };
    QTest::newRow("order of input kept")
        << QStringList { u"lm_head.weight"_s, u"model.embed_tokens.weight"_s, u"model.norm.weight"_s }
        << QStringList { u"lm_head.weight"_s, u"embed_tokens.weight"_s, u"norm.weight"_s };
}

void tst_UniqueSuffix::suffixes()
{
    QFETCH(QStringList, names);
    QFETCH(QStringList, expected);
    std::vector<std::string> storage;
    for (const QString &name : names)
        storage.push_back(name.toStdString());
    const std::vector<std::string_view> views(storage.begin(), storage.end());
    const auto starts = uniqueSuffixStarts(views);
    QCOMPARE(starts.size(), std::size_t(names.size()));
    QStringList suffixes;
    for (std::size_t i = 0; i < starts.size(); ++i)
        suffixes << QString::fromStdString(storage[i].substr(starts[i]));
    QCOMPARE(suffixes, expected);
}

// A hostile file's names: 2,000 names of 1,000 segments sharing all but the first one. Each
// needs its whole name, including the first segment the sort compares last.
void tst_UniqueSuffix::longNamesStayLinear()
{
    std::string tail;
    for (int i = 0; i < 1000; ++i)
        tail += ".s";
    std::vector<std::string> storage;
    for (int i = 0; i < 2000; ++i)
        storage.push_back(std::to_string(i) + tail);
    const std::vector<std::string_view> views(storage.begin(), storage.end());
    const auto starts = uniqueSuffixStarts(views);
    QCOMPARE(starts.size(), storage.size());
    for (const std::size_t start : starts)
        QCOMPARE(start, std::size_t(0));
}

void tst_UniqueSuffix::compact_data()
{
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("none") << QStringList() << QStringList();
    QTest::newRow("one label: kept") << QStringList { u"norm.weight"_s } << QStringList { u"norm.weight"_s };
    QTest::newRow("layers of a Llama") << QStringList { u"embed_tokens.weight"_s, u"0.mlp.down_proj.weight"_s,
        u"0.mlp.gate_proj.weight"_s, u"11.mlp.up_proj.weight"_s, u"lm_head.weight"_s }
                                       << QStringList { u"embed_tokens"_s, u"0.down_proj"_s, u"0.gate_proj"_s,
                                              u"11.up_proj"_s, u"lm_head"_s };
    QTest::newRow("weight and bias differ, the layer is shared")
        << QStringList { u"fc.weight"_s, u"fc.bias"_s } << QStringList { u"weight"_s, u"bias"_s };
    QTest::newRow("nothing left: the whole label")
        << QStringList { u"m.b"_s, u"x.m.b"_s } << QStringList { u"m.b"_s, u"x"_s };
    QTest::newRow("a short form equal to another label: its full form")
        << QStringList { u"a.b"_s, u"x.a.b"_s, u"x.e.f"_s } << QStringList { u"a.b"_s, u"x.a.b"_s, u"e.f"_s };
}

void tst_UniqueSuffix::compact()
{
    QFETCH(QStringList, labels);
    QFETCH(QStringList, expected);
    std::vector<std::string> storage;
    for (const QString &label : labels)
        storage.push_back(label.toStdString());
    const std::vector<std::string_view> views(storage.begin(), storage.end());
    QStringList result;
    for (const std::string &text : compactLabels(views))
        result << QString::fromStdString(text);
    QCOMPARE(result, expected);
}

QTEST_GUILESS_MAIN(tst_UniqueSuffix)
#include "tst_uniquesuffix.moc"
