// The dotted-name tree both the tensor tree and the compare tree show: grouping, natural order,
// rows, paths and look-ups, and sums over groups.
#include "core/text/nametree.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace stb;
using namespace Qt::StringLiterals;

namespace {

std::vector<std::string_view> views(const QStringList &names, std::vector<std::string> &storage)
{
    storage.clear();
    for (const QString &name : names)
        storage.push_back(name.toStdString());
    return { storage.begin(), storage.end() };
}

// "a{b#0,b{c#1}}": a group's children in braces, a leaf with its index (and its adopted children
// in braces after it: "w#0{s#1}"); checks rows and parents
// on the way, so a wrong row number fails every row of the table.
std::string dump(const NameTree &tree, int id = NameTree::kRoot)
{
    const NameTree::Node &node = tree.node(id);
    std::string out = id == NameTree::kRoot ? std::string() : std::string(node.name);
    if (!node.isGroup())
        out += '#' + std::to_string(node.leaf);
    if (!node.isGroup() && node.children.empty())
        return out;
    out += '{';
    for (std::size_t row = 0; row < node.children.size(); ++row) {
        const int child = node.children[row];
        if (tree.node(child).parent != id || tree.node(child).row != static_cast<int>(row) || child <= id)
            return "bad links below " + tree.path(id);
        out += (row ? "," : "") + dump(tree, child);
    }
    return out + '}';
}

} // namespace

class tst_NameTree : public QObject {
    Q_OBJECT

private slots:
    void build_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<bool>("flat");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QStringList {} << false << u"{}"_s;
        QTest::newRow("one plain name") << QStringList { u"w"_s } << false << u"{w#0}"_s;
        QTest::newRow("groups") << QStringList { u"m.a.w"_s, u"m.b"_s, u"m.a.b"_s } << false
                                << u"{m{a{b#2,w#0},b#1}}"_s;
        QTest::newRow("natural order") << QStringList { u"layers.10.w"_s, u"layers.2.w"_s, u"layers.1.w"_s }
                                       << false << u"{layers{1{w#2},2{w#1},10{w#0}}}"_s;
        QTest::newRow("leaf before group of the same name")
            << QStringList { u"a.b.c"_s, u"a.b"_s } << false << u"{a{b#1,b{c#0}}}"_s;
        QTest::newRow("empty segments")
            << QStringList { u".a"_s, u"b."_s, u"c..d"_s } << false << u"{{a#0},b{#1},c{{d#2}}}"_s;
        QTest::newRow("duplicates keep input order")
            << QStringList { u"x.y"_s, u"x.y"_s } << false << u"{x{y#0,y#1}}"_s;
        QTest::newRow("leading zeros: shorter spelling first")
            << QStringList { u"n.007"_s, u"n.7"_s } << false << u"{n{7#1,007#0}}"_s;
        // A name's groups are taken from the name before it where their paths agree: these make
        // it meet a group again after others, go deeper after shallower, and share a segment
        // under another parent.
        QTest::newRow("group met again after another")
            << QStringList { u"a.x.w"_s, u"b.x.w"_s, u"a.x.v"_s } << false << u"{a{x{v#2,w#0}},b{x{w#1}}}"_s;
        QTest::newRow("deeper after shallower")
            << QStringList { u"a.b.c.d"_s, u"a.e"_s, u"a.b.c.f"_s } << false << u"{a{b{c{d#0,f#2}},e#1}}"_s;
        QTest::newRow("same segment under other parents")
            << QStringList { u"l.0.mlp.w"_s, u"l.1.mlp.w"_s, u"l.0.mlp.b"_s } << false
            << u"{l{0{mlp{b#2,w#0}},1{mlp{w#1}}}}"_s;
        QTest::newRow("flat") << QStringList { u"b.10"_s, u"b.9"_s, u"a.x"_s } << true
                              << u"{a.x#2,b.9#1,b.10#0}"_s;
    }
    void build()
    {
        QFETCH(QStringList, names);
        QFETCH(bool, flat);
        QFETCH(QString, expected);
        std::vector<std::string> storage;
        const auto list = views(names, storage);
        const NameTree tree = NameTree::build(list, flat ? NameTree::Layout::Flat : NameTree::Layout::Tree);
        QCOMPARE(QString::fromStdString(dump(tree)), expected);
        QCOMPARE(tree.leafCount(), list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const int id = tree.nodeOfLeaf(i);
            QCOMPARE(tree.node(id).leaf, static_cast<int>(i));
            QCOMPARE(tree.path(id), std::string(list[i]));
        }
    }

    // More groups than names (each name its own two): the group table grows past its first size.
    void manyGroups()
    {
        std::vector<std::string> storage;
        for (int i = 0; i < 5000; ++i)
            storage.push_back("g" + std::to_string(i) + ".h.w");
        const std::vector<std::string_view> list(storage.begin(), storage.end());
        const NameTree tree = NameTree::build(list);
        QCOMPARE(tree.size(), std::size_t(1 + 3 * 5000));
        QCOMPARE(tree.node(NameTree::kRoot).children.size(), std::size_t(5000));
        for (std::size_t i = 0; i < list.size(); ++i) {
            QCOMPARE(tree.find(list[i]), tree.nodeOfLeaf(i));
            QCOMPARE(tree.path(tree.node(tree.nodeOfLeaf(i)).parent), "g" + std::to_string(i) + ".h");
        }
        QVERIFY(dump(tree).find("bad links") == std::string::npos);
    }

    void find_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("path"); // of the node found, empty when none
        QTest::addColumn<bool>("group");
        QTest::newRow("tensor") << u"model.layers.2.w"_s << u"model.layers.2.w"_s << false;
        QTest::newRow("group") << u"model.layers.10"_s << u"model.layers.10"_s << true;
        QTest::newRow("tensor shadows a group of its name") << u"model.b"_s << u"model.b"_s << false;
        QTest::newRow("exact spelling among equal numbers") << u"model.007"_s << u"model.007"_s << false;
        QTest::newRow("other spelling") << u"model.7"_s << u"model.7"_s << false;
        QTest::newRow("missing") << u"model.layers.3"_s << QString() << false;
        QTest::newRow("missing below a tensor") << u"model.007.x"_s << QString() << false;
        QTest::newRow("root is never found") << QString() << QString() << false;
    }
    void find()
    {
        QFETCH(QString, name);
        QFETCH(QString, path);
        QFETCH(bool, group);
        std::vector<std::string> storage;
        const auto list = views({ u"model.layers.2.w"_s, u"model.layers.10.w"_s, u"model.b"_s, u"model.b.c"_s,
                                    u"model.007"_s, u"model.7"_s },
            storage);
        const NameTree tree = NameTree::build(list);
        const int id = tree.find(name.toStdString());
        if (path.isEmpty()) {
            QCOMPARE(id, -1);
            return;
        }
        QVERIFY(id > 0);
        QCOMPARE(QString::fromStdString(tree.path(id)), path);
        QCOMPARE(tree.node(id).isGroup(), group);
    }

    void findFlat()
    {
        std::vector<std::string> storage;
        const NameTree tree = NameTree::build(views({ u"a.b"_s, u"a.c"_s }, storage), NameTree::Layout::Flat);
        QCOMPARE(tree.find("a.c"), tree.nodeOfLeaf(1));
        QCOMPARE(tree.find("a"), -1); // no groups in a flat list
    }

    void adopt_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<bool>("flat");
        QTest::addColumn<QList<int>>("pairs"); // child leaf, parent leaf, child, parent, …
        QTest::addColumn<QString>("expected");
        QTest::newRow("gptq companions under qweight")
            << QStringList { u"l.q.qweight"_s, u"l.q.qzeros"_s, u"l.q.scales"_s, u"l.q.g_idx"_s, u"l.n"_s }
            << false << QList<int> { 1, 0, 2, 0, 3, 0 } << u"{l{n#4,q{qweight#0{g_idx#3,qzeros#1,scales#2}}}}"_s;
        QTest::newRow("bnb: emptied groups go, names keep the rest of their path")
            << QStringList { u"l.n.weight.absmax"_s, u"l.n.weight"_s, u"l.n.weight.quant_state.bitsandbytes__nf4"_s,
                   u"l.n.bias"_s }
            << false << QList<int> { 0, 1, 2, 1 }
            << u"{l{n{bias#3,weight#1{weight.absmax#0,weight.quant_state.bitsandbytes__nf4#2}}}}"_s;
        QTest::newRow("mxfp4 siblings")
            << QStringList { u"e.up_scales"_s, u"e.up_blocks"_s } << false << QList<int> { 0, 1 }
            << u"{e{up_blocks#1{up_scales#0}}}"_s;
        QTest::newRow("flat: whole names")
            << QStringList { u"a.w"_s, u"a.s"_s, u"b"_s } << true << QList<int> { 1, 0 } << u"{a.w#0{a.s#1},b#2}"_s;
        QTest::newRow("skipped: other group, self, out of range, chains")
            << QStringList { u"x.w"_s, u"y.s"_s, u"x.s"_s, u"x.t"_s } << false
            << QList<int> { 1, 0, 0, 0, 9, 0, 0, 9, 2, 0, 3, 2, 0, 3 } << u"{x{t#3,w#0{s#2}},y{s#1}}"_s;
        QTest::newRow("skipped: a moved leaf adopts nothing")
            << QStringList { u"x.w"_s, u"x.s"_s, u"x.t"_s } << false << QList<int> { 1, 0, 2, 1 }
            << u"{x{t#2,w#0{s#1}}}"_s;
    }
    void adopt()
    {
        QFETCH(QStringList, names);
        QFETCH(bool, flat);
        QFETCH(QList<int>, pairs);
        QFETCH(QString, expected);
        std::vector<std::string> storage;
        const auto list = views(names, storage);
        NameTree tree = NameTree::build(list, flat ? NameTree::Layout::Flat : NameTree::Layout::Tree);
        std::vector<std::pair<std::size_t, std::size_t>> moves;
        for (qsizetype k = 0; k + 1 < pairs.size(); k += 2)
            moves.emplace_back(std::size_t(pairs[k]), std::size_t(pairs[k + 1]));
        tree.adopt(moves);
        QCOMPARE(QString::fromStdString(dump(tree)), expected);
        // Every leaf keeps its whole name and is found by it; sums still reach every node.
        for (std::size_t i = 0; i < list.size(); ++i) {
            const int id = tree.nodeOfLeaf(i);
            QCOMPARE(tree.node(id).leaf, static_cast<int>(i));
            QCOMPARE(tree.path(id), std::string(list[i]));
            QCOMPARE(tree.find(list[i]), id);
        }
        const auto counts = tree.sum<int>([](std::size_t) { return 1; }, [](int &into, int from) { into += from; });
        QCOMPARE(counts[NameTree::kRoot], int(list.size()));
        std::vector<std::size_t> below;
        tree.forEachLeaf(NameTree::kRoot, [&](std::size_t leaf) { below.push_back(leaf); });
        QCOMPARE(below.size(), list.size());
    }

    void sum()
    {
        std::vector<std::string> storage;
        const NameTree tree = NameTree::build(views({ u"m.a.x"_s, u"m.a.y"_s, u"m.b"_s, u"n"_s }, storage));
        const std::vector<std::uint64_t> sizes { 1, 2, 4, UINT64_MAX };
        const auto sums = tree.sum<std::uint64_t>([&](std::size_t leaf) { return sizes[leaf]; },
            [](std::uint64_t &into, std::uint64_t from) {
                into = into > UINT64_MAX - from ? UINT64_MAX : into + from;
            });
        QCOMPARE(sums.size(), tree.size());
        QCOMPARE(sums[static_cast<std::size_t>(tree.find("m.a"))], 3u);
        QCOMPARE(sums[static_cast<std::size_t>(tree.find("m"))], 7u);
        QCOMPARE(sums[static_cast<std::size_t>(tree.find("n"))], UINT64_MAX);
        QCOMPARE(sums[NameTree::kRoot], UINT64_MAX); // saturated by the given add

        std::vector<std::size_t> below;
        tree.forEachLeaf(tree.find("m"), [&](std::size_t leaf) { below.push_back(leaf); });
        std::sort(below.begin(), below.end());
        QCOMPARE(below, (std::vector<std::size_t> { 0, 1, 2 }));
    }
};

QTEST_GUILESS_MAIN(tst_NameTree)
#include "tst_nametree.moc"
