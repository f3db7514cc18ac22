#pragma once

#include <QRegularExpression>
#include <QSortFilterProxyModel>

namespace stb {

// Filters a TensorTreeModel by tensor name, keeping each matching tensor with the groups above it.
// Case-insensitive. The pattern is matched against the tensor's full dotted name: a substring
// anywhere (default), a glob over the whole name ("*.mlp.*.weight"), or a regular expression
// found anywhere in it. Sorting uses the model's SortRole, so numbers sort as numbers.
class TensorFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Mode { Substring, Glob, Regex };
    Q_ENUM(Mode)

    explicit TensorFilterModel(QObject *parent = nullptr);

    void setPattern(const QString &pattern);
    QString pattern() const { return m_pattern; }
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    // False when a regex pattern does not compile; then every tensor is shown.
    bool isPatternValid() const { return m_valid; }
    QString patternError() const { return m_error; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void update();

    QString m_pattern;
    Mode m_mode = Mode::Substring;
    QRegularExpression m_expression;
    bool m_valid = true;
    QString m_error;
};

} // namespace stb
