#include "ui/shell/recentfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const auto kKey = u"recentFiles"_s;

} // namespace

RecentFiles::RecentFiles(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
{
    connect(m_menu, &QMenu::aboutToShow, this, &RecentFiles::rebuildMenu);
    rebuildMenu();
}

QStringList RecentFiles::paths() const
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::save(const QStringList &paths)
{
    QSettings().setValue(kKey, paths);
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
    const auto vanished
        = std::remove_if(list.begin(), list.end(), [](const QString &p) { return !QFileInfo::exists(p); });
    if (vanished != list.end()) {
        list.erase(vanished, list.end());
        save(list);
    }
    m_menu->clear();
    for (int i = 0; i < list.size(); ++i) {
        const QString &path = list.at(i);
        // "&1 model.safetensors — /home/me/models": a mnemonic, the name first, then the folder.
        const QString text = u"&%1 %2 — %3"_s.arg(QString::number((i + 1) % 10), QFileInfo(path).fileName(),
            QDir::toNativeSeparators(QFileInfo(path).absolutePath()));
        m_menu->addAction(text, this, [this, path] { emit openRequested(path); });
    }
    if (list.isEmpty())
        m_menu->addAction(tr("No recent files"))->setEnabled(false);
    m_menu->addSeparator();
    m_menu->addAction(tr("Clear Recent Files"), this, &RecentFiles::clear)->setEnabled(!list.isEmpty());
}

} // namespace stb
