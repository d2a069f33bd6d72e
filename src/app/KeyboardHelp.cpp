#include "KeyboardHelp.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace nbody::app {

namespace {

/// "&Open snapshot…" → "Open snapshot…" ("&&" stays a single "&").
QString withoutMnemonic(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

QString keysOf(const QAction* a)
{
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts())
        keys << k.toString(QKeySequence::PortableText);
    return keys.join(QStringLiteral(", "));
}

void addMenu(QList<ShortcutRow>& rows, QSet<const QAction*>& seen, const QMenu* menu, const QString& group)
{
    for (QAction* a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu()) {
            addMenu(rows, seen, a->menu(), group + QStringLiteral(" → ") + withoutMnemonic(a->menu()->title()));
            continue;
        }
        if (a->shortcuts().isEmpty() || seen.contains(a))
            continue;
        seen.insert(a);
        rows.append({group, keysOf(a), withoutMnemonic(a->text()), a->statusTip(), true});
    }
}

} // namespace

QString fieldsAndShortcuts()
{
    return QObject::tr("Single-key shortcuts (Space, P, N, B, C, 1–4, …) work when the view, a button or a list has "
                       "the keyboard. In a text or number field the keys type: every key without Ctrl or Alt goes "
                       "into the field, and shortcuts with Ctrl (Ctrl+R, Ctrl+S, …) still work. In a dock's field "
                       "Enter applies the value and Escape puts the value in use back; both, and a click in the "
                       "view, hand the keyboard to the view. The mouse wheel changes a spin box, list box or slider "
                       "only while it has the keyboard (click it first); elsewhere it scrolls the dock.");
}

QList<ShortcutRow> viewKeys()
{
    const QString g = QObject::tr("Keys in the view");
    return {
        {g, QStringLiteral("Left, Right, Up, Down"), QObject::tr("Orbit the camera by 6°"), {}, true},
        {g, QStringLiteral("Shift+Left, Shift+Right, Shift+Up, Shift+Down"), QObject::tr("Pan by 5 % of the view"), {}, true},
        {g, QStringLiteral("+, =, PgUp"), QObject::tr("Zoom in"), {}, true},
        {g, QStringLiteral("-, PgDown"), QObject::tr("Zoom out"), {}, true},
        {g, QStringLiteral("Esc"), QObject::tr("Cancel an add or delete drag, else end the selection"), {}, true},
    };
}

QList<ShortcutRow> shortcutRows(const QMenuBar* bar, const QList<QAction*>& tools)
{
    QList<ShortcutRow> rows;
    QSet<const QAction*> seen;
    for (QAction* top : bar->actions())
        if (top->menu())
            addMenu(rows, seen, top->menu(), withoutMnemonic(top->menu()->title()));
    // The tools' mouse gestures, from their status tips ("Left-drag orbits, right-drag pans, …").
    const QString mouse = QObject::tr("Mouse in the view");
    for (const QAction* t : tools) {
        const QString tool = withoutMnemonic(t->text());
        for (const QString& part : t->statusTip().split(QRegularExpression(QStringLiteral("[;,] ")), Qt::SkipEmptyParts)) {
            QString p = part.trimmed();
            if (p.endsWith(QLatin1Char('.')))
                p.chop(1);
            rows.append({mouse, QObject::tr("%1 tool").arg(tool), p.left(1).toUpper() + p.mid(1), t->statusTip(), false});
        }
    }
    rows.append(viewKeys());
    return rows;
}

QString shortcutsMarkdown(const QList<ShortcutRow>& rows)
{
    QString md = QStringLiteral(
        "# Keyboard and mouse\n\n"
        "Every shortcut of N-Body Sandbox, as **Help → Keyboard shortcuts** lists it (both are made from the "
        "window's own actions; `tst_shortcuts` checks that this page matches, and `NBODY_UPDATE_DOCS=1` "
        "rewrites it). ") +
        fieldsAndShortcuts() + QStringLiteral("\n");
    QString group;
    for (const ShortcutRow& r : rows) {
        if (r.group != group) {
            group = r.group;
            md += QStringLiteral("\n## %1\n\n%2\n| --- | --- |\n")
                      .arg(group, r.sequence ? QStringLiteral("| Keys | Action |") : QStringLiteral("| Tool | Mouse |"));
        }
        QString keys = r.keys;
        keys.replace(QLatin1Char('|'), QStringLiteral("\\|"));
        md += QStringLiteral("| %1 | %2 |\n").arg(keys, QString(r.action).replace(QLatin1Char('|'), QStringLiteral("\\|")));
    }
    return md;
}

ShortcutsDialog::ShortcutsDialog(const QList<ShortcutRow>& rows, QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    auto* intro = new QLabel(fieldsAndShortcuts(), this);
    intro->setWordWrap(true);
    m_table = new QTableWidget(int(rows.size()), 3, this);
    m_table->setObjectName(QStringLiteral("shortcutsTable"));
    m_table->setHorizontalHeaderLabels({tr("Where"), tr("Keys or mouse"), tr("Action")});
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    for (int i = 0; i < int(rows.size()); ++i) {
        const ShortcutRow& r = rows[i];
        QStringList keys;
        for (const QString& k : r.keys.split(QStringLiteral(", ")))
            keys << (r.sequence ? QKeySequence(k, QKeySequence::PortableText).toString(QKeySequence::NativeText) : k);
        const QStringList cells = {r.group, keys.join(QStringLiteral(", ")), r.action};
        for (int c = 0; c < 3; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(r.tip.isEmpty() ? cells[c] : r.tip);
            m_table->setItem(i, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    int width = 0;
    for (int c = 0; c < 3; ++c)
        width += m_table->columnWidth(c);
    resize(std::min(width + 60, 1000), 620);
}

QChar mnemonic(const QString& text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (text[i + 1] == QLatin1Char('&')) {
            ++i; // "&&": a literal ampersand
            continue;
        }
        return text[i + 1].toLower();
    }
    return {};
}

void assignMnemonics(QMenu* menu)
{
    QSet<QChar> used;
    QList<QAction*> without;
    for (QAction* a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu())
            assignMnemonics(a->menu());
        const QString text = a->menu() ? a->menu()->title() : a->text();
        if (const QChar m = mnemonic(text); !m.isNull())
            used.insert(m);
        else
            without << a;
    }
    for (QAction* a : without) {
        QString text = a->menu() ? a->menu()->title() : a->text();
        qsizetype at = -1;
        // The first free initial of a word, else the first free letter or digit.
        for (qsizetype i = 0; i < text.size() && at < 0; ++i)
            if (text[i].isLetterOrNumber() && (i == 0 || !text[i - 1].isLetterOrNumber()) && !used.contains(text[i].toLower()))
                at = i;
        for (qsizetype i = 0; i < text.size() && at < 0; ++i)
            if (text[i].isLetterOrNumber() && text[i].unicode() < 128 && !used.contains(text[i].toLower()))
                at = i;
        if (at < 0)
            continue; // no letter left: the item stays without one
        used.insert(text[at].toLower());
        text.insert(at, QLatin1Char('&'));
        if (a->menu())
            a->menu()->setTitle(text);
        else
            a->setText(text);
    }
}

} // namespace nbody::app
