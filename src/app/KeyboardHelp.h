#pragma once
/// \file KeyboardHelp.h
/// Help → Keyboard shortcuts and the menus' mnemonics.
///
/// The table is made from the window itself, not copied by hand: every action of the menu bar
/// (and its submenus) with a shortcut, under its menu; the mouse gestures of each view tool (the
/// tool actions' status tips: "Left-drag orbits, right-drag pans, the wheel zooms"); and the
/// keys the view handles itself (viewKeys(), which tst_shortcuts checks against the view by
/// pressing each one). docs/shortcuts.md is shortcutsMarkdown() of the same rows, checked by
/// tst_shortcuts (NBODY_UPDATE_DOCS=1 rewrites it).

#include <QDialog>
#include <QList>
#include <QString>

class QAction;
class QMenu;
class QMenuBar;
class QTableWidget;

namespace nbody::app {

/// One row of the table.
struct ShortcutRow {
    QString group;  ///< "File", "View", "Mouse in the view", "Keys in the view"
    QString keys;   ///< "Ctrl+O", "Space", "Left-drag"; portable text (QKeySequence::PortableText)
    QString action; ///< "Open snapshot…" (without the mnemonic's &)
    QString tip;    ///< the status tip, when there is one
    bool sequence = false; ///< `keys` are key sequences (a menu action's), shown in the platform's form
};

/// How single-key shortcuts, the fields of the docks and the wheel share the keyboard and mouse
/// (KeyboardFocus.h, WheelFocus.h): the introduction of the dialog and of docs/shortcuts.md.
QString fieldsAndShortcuts();

/// The keys the view (Viewport::keyPressEvent) handles when it has the keyboard.
QList<ShortcutRow> viewKeys();

/// The rows of `bar`'s menus (actions with a shortcut, each once, in menu order), then the mouse
/// gestures of `tools` (checkable tool actions: "Mouse, <tool>": each part of its status tip),
/// then viewKeys().
QList<ShortcutRow> shortcutRows(const QMenuBar* bar, const QList<QAction*>& tools);

/// The rows as a Markdown document (a heading, a line of introduction, one table per group).
QString shortcutsMarkdown(const QList<ShortcutRow>& rows);

/// The dialog: one table (group, keys, action), sortable, the status tips as tooltips.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QList<ShortcutRow>& rows, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

/// The mnemonic of a menu text ("Open s&cenario…" → 'c', lower case), or a null QChar.
QChar mnemonic(const QString& text);
/// Gives every action of `menu` (and of its submenus) that has no mnemonic a letter not yet
/// used in that menu: the first free initial of its words, else its first free letter.
void assignMnemonics(QMenu* menu);

} // namespace nbody::app
