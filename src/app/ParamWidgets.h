#pragma once
/// \file ParamWidgets.h
/// Editors made from the parameter table (sim/core/ParamTable.h): one row of a form per parameter —
/// a spin box for an integer (showing "auto" for 0 where 0 means auto), a double spin box for a
/// real number, a check box for a boolean, a line edit for a registry id — named by the row's key
/// (objectName), ranged by the row, with the row's doc as tooltip. An edit is reported as the
/// row's key and the value's exact text, which the controller applies through the row
/// (SimulationController::setParam), so a row declared in the table has its editor with no
/// other code.

#include "sim/core/ParamTable.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <map>

class QFormLayout;

namespace nbody::app {

class ParamForm : public QWidget {
    Q_OBJECT
public:
    /// The rows for which `wanted` is true, in table order (rows declared later are not added).
    ParamForm(std::function<bool(const nbody::ParamInfo&)> wanted, QWidget* parent = nullptr);

    /// Shows the values of `p` (no edit is reported).
    void setParams(const nbody::SimParams& p);
    /// The editor of row `key`, or nullptr when the form has none.
    QWidget* editor(const QString& key) const;
    /// The form's rows' keys, in order.
    QStringList keys() const;
    bool isEmpty() const { return m_editors.empty(); }

signals:
    /// The user changed row `key` to `text` (the row's exact text).
    void edited(const QString& key, const QString& text);

private:
    QWidget* makeEditor(const nbody::ParamInfo& row);

    QFormLayout* m_form;
    std::map<QString, QWidget*> m_editors;
    QStringList m_keys;
};

} // namespace nbody::app
