#pragma once

#include <QFrame>

class QLabel;
class QHBoxLayout;

namespace stb {

// An inline notice above a document ("The file changed on disk. [Reload]"): it informs without
// stopping the user the way a modal box would. Qt 6.4 has no KMessageWidget; this is its
// small cousin.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget *parent = nullptr);

    void showMessage(Kind kind, const QString &text);
    QString text() const;
    // Adds a button that emits `triggered` (the bar stays; the caller decides what happens).
    QAction *addAction(const QString &text);

private:
    QLabel *m_icon;
    QLabel *m_text;
    QHBoxLayout *m_layout;
};

} // namespace stb
