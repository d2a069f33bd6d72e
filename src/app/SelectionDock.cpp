#include "SelectionDock.h"
#include "DockScroll.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace nbody::app {

namespace {

/// "1.234e-05": values spanning many orders of magnitude, 4 significant digits.
QString num(double v)
{
    return QLocale::c().toString(v, 'g', 4);
}

QString vec(const nbody::Double3& v)
{
    return QStringLiteral("(%1, %2, %3)").arg(num(v.x), num(v.y), num(v.z));
}

QString groupName(nbody::Group g)
{
    switch (g) {
    case nbody::Group::DarkMatter: return SelectionDock::tr("dark matter");
    case nbody::Group::Star: return SelectionDock::tr("star");
    case nbody::Group::Gas: return SelectionDock::tr("gas");
    case nbody::Group::Generic: break;
    }
    return SelectionDock::tr("generic");
}

} // namespace

SelectionDock::SelectionDock(QWidget* parent) : QDockWidget(tr("Selection"), parent)
{
    setObjectName(QStringLiteral("SelectionDock"));
    auto* body = new QWidget(this);
    auto* column = new QVBoxLayout(body);
    m_status = new QLabel(body);
    m_status->setObjectName(QStringLiteral("selectionStatus"));
    m_status->setWordWrap(true);
    column->addWidget(m_status);

    auto* box = new QGroupBox(tr("Body"), body);
    auto* form = new QFormLayout(box);
    const QString names[] = {tr("Index"), tr("Id"), tr("Name"), tr("Group"), tr("Mass"), tr("Position"),
                             tr("Velocity"), tr("Speed"), tr("Acceleration"), tr("|a|"),
                             tr("Nearest"), tr("Most attracting")};
    for (const QString& n : names) {
        auto* l = new QLabel(box);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setWordWrap(true);
        l->setObjectName(QStringLiteral("selection") + QString(n).remove(QLatin1Char(' ')).remove(QLatin1Char('|')));
        form->addRow(n + QLatin1Char(':'), l);
        m_rows.emplace_back(n, l);
    }
    row(tr("Acceleration"))->setToolTip(tr("The softened gravitational acceleration G Σ m_j (x_j − x) / (r² + ε²)^{3/2} "
                                           "of all other bodies, summed in fp64"));
    row(tr("Nearest"))->setToolTip(tr("The nearest other body: its id and distance"));
    row(tr("Most attracting"))->setToolTip(tr("The body with the largest pull G m_j / (r² + ε²) on this one: its "
                                              "id, pull and distance"));
    column->addWidget(box);

    auto* controls = new QHBoxLayout;
    m_follow = new QCheckBox(tr("Follow (L)"), body);
    m_follow->setObjectName(QStringLiteral("selectionFollow"));
    m_follow->setToolTip(tr("Keep the selected body in the middle of the view (View → Follow selected body)"));
    m_clear = new QPushButton(tr("Clear"), body);
    m_clear->setObjectName(QStringLiteral("selectionClear"));
    m_clear->setToolTip(tr("End the selection (Esc in the view)"));
    connect(m_clear, &QPushButton::clicked, this, &SelectionDock::clearRequested);
    controls->addWidget(m_follow);
    controls->addStretch(1);
    controls->addWidget(m_clear);
    // Under the status line, above the values: at 1366 × 768 the column is about 340 px tall,
    // and below the twelve rows Follow and Clear were out of sight until scrolled to.
    column->insertLayout(1, controls);
    column->addStretch(1);
    setScrollableWidget(this, body);
    clear();
}

QLabel* SelectionDock::row(const QString& name) const
{
    for (const auto& [n, l] : m_rows)
        if (n == name)
            return l;
    return nullptr;
}

QString SelectionDock::value(const QString& name) const
{
    const QLabel* l = row(name);
    return l ? l->text() : QString();
}

void SelectionDock::setReport(const nbody::BodyReport& r)
{
    m_selected = r.id;
    m_status->setText(tr("Body %1 is selected; the values refresh ten times a second.").arg(r.id));
    row(tr("Index"))->setText(QString::number(r.index));
    row(tr("Id"))->setText(QString::number(r.id));
    row(tr("Name"))->setText(r.name.empty() ? QStringLiteral("–") : QString::fromStdString(r.name));
    row(tr("Group"))->setText(groupName(r.group));
    row(tr("Mass"))->setText(num(r.mass));
    row(tr("Position"))->setText(vec(r.position));
    row(tr("Velocity"))->setText(vec(r.velocity));
    row(tr("Speed"))->setText(num(r.speed));
    row(tr("Acceleration"))->setText(vec(r.acceleration));
    row(tr("|a|"))->setText(num(r.accelerationMagnitude));
    row(tr("Nearest"))->setText(r.nearest ? tr("id %1 at r = %2").arg(r.nearestId).arg(num(r.nearestDistance))
                                          : QStringLiteral("–"));
    row(tr("Most attracting"))->setText(r.attractor ? tr("id %1: G m / (r² + ε²) = %2 at r = %3")
                                                          .arg(r.attractorId)
                                                          .arg(num(r.attractorPull), num(r.attractorDistance))
                                                    : QStringLiteral("–"));
    m_clear->setEnabled(true);
}

void SelectionDock::clear(const QString& why)
{
    m_selected.reset();
    m_status->setText((why.isEmpty() ? QString() : why + QLatin1Char(' ')) +
                      tr("No body is selected: click one in the Navigate tool (Esc or a click on empty space "
                         "clears)."));
    for (const auto& [n, l] : m_rows)
        l->setText(QStringLiteral("–"));
    m_clear->setEnabled(false);
}

} // namespace nbody::app
