#pragma once
/// \file SelectionDock.h
/// The "Selection" dock: what the selected body is doing (sim/core/Selection.h, BodyReport): index,
/// stable id, name, group, mass, position, velocity, speed, acceleration, its nearest and most
/// attracting neighbour; a "Follow" check box (the camera keeps the body in the middle, View →
/// Follow selected body) and Clear. A body is selected by a click in the Navigate tool; Esc or a
/// click on empty space clears. It only shows values and reports the two controls.

#include "sim/core/Selection.h"

#include <QDockWidget>

#include <optional>

class QCheckBox;
class QLabel;
class QPushButton;

namespace nbody::app {

class SelectionDock : public QDockWidget {
    Q_OBJECT
public:
    explicit SelectionDock(QWidget* parent = nullptr);

    /// Shows `report` (a refreshed report of the selected body).
    void setReport(const nbody::BodyReport& report);
    /// No body is selected (any more): `why` says what ended it ("" for a plain clear).
    void clear(const QString& why = QString());
    bool hasSelection() const { return m_selected.has_value(); }
    /// The stable id of the body shown, when one is.
    std::optional<std::uint32_t> selectedId() const { return m_selected; }
    /// The text of a value row by its label ("Mass"), for tests and the status bar.
    QString value(const QString& row) const;
    /// The Follow check box (kept in step with View → Follow selected body by SelectionPresenter).
    QCheckBox* followBox() const { return m_follow; }

signals:
    void clearRequested();

private:
    std::optional<std::uint32_t> m_selected;
    QLabel* m_status = nullptr;
    QCheckBox* m_follow = nullptr;
    QPushButton* m_clear = nullptr;
    std::vector<std::pair<QString, QLabel*>> m_rows;
    QLabel* row(const QString& name) const;
};

} // namespace nbody::app
