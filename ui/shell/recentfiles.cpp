#include "ui/shell/recentfiles.h"

#include "ui/common/qtformat.h"

#include <QMenu>
#include <QSettings>

#include <algorithm>
#include <string>
#include <string_view>

#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const auto kKey = u"recentFiles"_s;

// Part of a path as a menu entry shows it: escaped, bounded, and no '&' taken for a mnemonic.
QString menuText(std::string_view part, qsizetype maxChars)
{
    return shownName(part, maxChars).replace(u'&', u"&&"_s);
}

} // namespace

RecentFiles::RecentFiles(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
{
    connect(m_menu, &QMenu::aboutToShow, this, &RecentFiles::rebuildMenu);
    rebuildMenu();
}

// Byte-exact (QSettings writes a QByteArray as @ByteArray(...), a lone surrogate in a QString
// would become '?'); lists written as strings by earlier versions still read.
QStringList RecentFiles::paths() const
{
    QStringList paths;
    for (const QVariant &entry : QSettings().value(kKey).toList())
        paths << (entry.typeId() == QMetaType::QByteArray ? pathToQString(entry.toByteArray().toStdString())
                                                          : entry.toString());
    return paths;
}

void RecentFiles::save(const QStringList &paths)
{
    QVariantList entries;
    for (const QString &path : paths) {
        const std::string bytes = pathFromQString(path);
        entries << QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
    }
    QSettings().setValue(kKey, entries);
}

void RecentFiles::add(const QString &path)
{
    QStringList list = paths();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxEntries)
        list.removeLast();
    save(list);
    rebuildMenu();
}

void RecentFiles::clear()
{
    save({});
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    QStringList list = paths();
    // stat on the bytes: QFileInfo would look for the name with U+FFFD in place of a non-UTF-8 byte.
    const auto vanished = std::remove_if(list.begin(), list.end(), [](const QString &p) {
        struct stat st;
        return ::stat(pathFromQString(p).c_str(), &st) != 0;
    });
    if (vanished != list.end()) {
        list.erase(vanished, list.end());
        save(list);
    }
    m_menu->clear();
    for (int i = 0; i < list.size(); ++i) {
        const QString &path = list.at(i);
        // "&1 model.safetensors — /home/me/models": a mnemonic, the name first, then the folder,
        // both escaped and bounded (a name is the file's, hostile like its contents).
        const std::string bytes = pathFromQString(path);
        const std::size_t slash = bytes.rfind('/');
        const std::string_view name = slash == std::string::npos ? std::string_view(bytes)
                                                                 : std::string_view(bytes).substr(slash + 1);
        const std::string_view folder = slash == std::string::npos ? std::string_view()
            : slash == 0                                            ? std::string_view("/")
                                                                    : std::string_view(bytes).substr(0, slash);
        const QString text = u"&%1 %2 — %3"_s.arg(QString::number((i + 1) % 10), menuText(name, 80),
            menuText(folder, 120));
        m_menu->addAction(text, this, [this, path] { emit openRequested(path); });
    }
    if (list.isEmpty())
        m_menu->addAction(tr("No recent files"))->setEnabled(false);
    m_menu->addSeparator();
    m_menu->addAction(tr("Clear Recent Files"), this, &RecentFiles::clear)->setEnabled(!list.isEmpty());
}

} // namespace stb
