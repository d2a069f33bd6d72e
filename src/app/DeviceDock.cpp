#include "DeviceDock.h"

#include "sim/core/KernelRegistry.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTextLayout>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <omp.h>

#include <algorithm>
#include <cmath>

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody::app {

namespace {

QString qstr(const std::string& s)
{
    return QString::fromStdString(s);
}

/// Draws the values wrapped to their column (at word boundaries, inside a word only when it is
/// longer than the column: a path, a UUID) and makes each row as tall as its value needs, so no
/// value is elided at any dock width.
class WrappingDelegate : public QStyledItemDelegate {
public:
    WrappingDelegate(QTreeWidget* tree, int column) : QStyledItemDelegate(tree), m_tree(tree), m_column(column) {}

    /// The text's height laid out `width` pixels wide.
    static qreal textHeight(const QString& text, const QFont& font, qreal width)
    {
        QTextLayout layout(text, font);
        QTextOption o;
        o.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        layout.setTextOption(o);
        qreal h = 0;
        layout.beginLayout();
        for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
            line.setLineWidth(std::max<qreal>(width, 1));
            h += line.height();
        }
        layout.endLayout();
        return h;
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        if (index.column() != m_column || !index.parent().isValid())
            return size;
        const QString text = index.data(Qt::DisplayRole).toString();
        const int width = textWidth(option);
        const qreal one = QFontMetricsF(option.font).height();
        const qreal needed = textHeight(text, option.font, width);
        if (needed > one)
            size.setHeight(size.height() + int(std::ceil(needed - one)));
        size.setWidth(std::min(size.width(), m_tree->columnWidth(m_column)));
        return size;
    }

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        if (index.column() != m_column || !index.parent().isValid()) {
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString text = opt.text;
        opt.text.clear(); // the background, selection and focus as usual; the text below
        const QWidget* w = opt.widget;
        QStyle* style = w ? w->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
        const QRect r = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, w)
                            .adjusted(textMargin(w), 0, -textMargin(w), 0);
        QTextOption o(Qt::AlignLeft | Qt::AlignVCenter);
        o.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        painter->save();
        const bool selected = opt.state & QStyle::State_Selected;
        const QPalette::ColorGroup group = (opt.state & QStyle::State_Enabled) ? QPalette::Normal : QPalette::Disabled;
        painter->setPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
        painter->setFont(opt.font);
        painter->drawText(QRectF(r), text, o);
        painter->restore();
    }

private:
    static int textMargin(const QWidget* w)
    {
        const QStyle* style = w ? w->style() : QApplication::style();
        return style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, w) + 1;
    }
    int textWidth(const QStyleOptionViewItem& option) const
    {
        return std::max(1, m_tree->columnWidth(m_column) - 2 * textMargin(option.widget) - 2);
    }

    QTreeWidget* m_tree;
    int m_column;
};

} // namespace

// ---- MachineInfoView ------------------------------------------------------------------------

MachineInfoView::MachineInfoView(QWidget* parent) : QWidget(parent)
{
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("machineTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Property"), tr("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setRootIsDecorated(false);
    m_tree->setAlternatingRowColors(true);
    // Values wrap to the column (rows as tall as they need): none is elided at any width; the
    // tooltip has the value and what the row means.
    m_tree->setWordWrap(true);
    m_tree->setUniformRowHeights(false);
    m_tree->setTextElideMode(Qt::ElideNone);
    m_tree->setItemDelegateForColumn(1, new WrappingDelegate(m_tree, 1));
    m_tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // It scrolls: the bottom docks it shares the area with can be made as small as their controls.
    m_tree->setMinimumHeight(1);
    // A new column width re-lays the rows out (their heights depend on it).
    connect(
        m_tree->header(), &QHeaderView::sectionResized, m_tree,
        [this](int section) {
            if (section == 1)
                m_tree->doItemsLayout();
        },
        Qt::QueuedConnection);

    // Ctrl+C (eventFilter) and the context menu copy the selected rows as "label: value" lines.
    auto* copyRows = new QAction(tr("Copy selected rows"), m_tree);
    connect(copyRows, &QAction::triggered, this, &MachineInfoView::copySelection);
    m_tree->addAction(copyRows);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_tree->installEventFilter(this);

    m_copy = new QPushButton(tr("Copy"), this);
    m_copy->setObjectName(QStringLiteral("copyMachineInfo"));
    m_copy->setToolTip(tr("Copy everything as text (the same form as `nbody devices` prints)"));
    connect(m_copy, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(text()); });

    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_copy);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tree);
    layout->addLayout(buttons);
}

void MachineInfoView::setSections(std::vector<nbody::MachineSection> sections)
{
    m_sections = std::move(sections);
    m_tree->clear();
    for (const nbody::MachineSection& s : m_sections) {
        auto* top = new QTreeWidgetItem(m_tree, {qstr(s.title)});
        top->setData(0, Qt::UserRole, qstr(s.key));
        top->setFirstColumnSpanned(true);
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        top->setFlags(Qt::ItemIsEnabled);
        for (const nbody::MachineRow& r : s.rows) {
            auto* item = new QTreeWidgetItem(top, {qstr(r.label), qstr(r.value)});
            item->setData(0, Qt::UserRole, qstr(r.key));
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            const QString tip = r.tooltip.empty() ? QString() : qstr(r.tooltip);
            item->setToolTip(0, tip);
            item->setToolTip(1, tip.isEmpty() ? qstr(r.value) : qstr(r.value) + QStringLiteral("\n\n") + tip);
        }
    }
    m_tree->expandAll();
}

bool MachineInfoView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_tree && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
        copySelection();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString MachineInfoView::text() const
{
    return qstr(nbody::machineText(m_sections));
}

void MachineInfoView::copySelection()
{
    QStringList lines;
    // in display order, not selection order
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* top = m_tree->topLevelItem(i);
        for (int j = 0; j < top->childCount(); ++j)
            if (top->child(j)->isSelected())
                lines << top->child(j)->text(0) + QStringLiteral(": ") + top->child(j)->text(1);
    }
    if (!lines.isEmpty())
        QGuiApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
}

// ---- DeviceDock -----------------------------------------------------------------------------

DeviceDock::DeviceDock(QWidget* parent) : QDockWidget(tr("Device"), parent)
{
    setObjectName(QStringLiteral("DeviceDock"));
    m_cuda = nbody::queryCuda();
    m_threads = omp_get_max_threads();
    m_processors = omp_get_num_procs();
    m_gl.error = "the view's OpenGL context is not created yet";
    m_gl.whyNoInterop = "the view's buffers are not set up yet";
    m_view = new MachineInfoView(this);
    setWidget(m_view);
    m_aboutAction = new QAction(tr("About this &machine"), this);
    m_aboutAction->setObjectName(QStringLiteral("aboutMachineAction"));
    m_aboutAction->setStatusTip(tr("The CUDA devices, OpenMP threads and the OpenGL context in use"));
    connect(m_aboutAction, &QAction::triggered, this, &DeviceDock::showAboutMachine);
    rebuild();
}

void DeviceDock::setGlContext(const nbody::GlContextInfo& gl)
{
    m_gl = gl;
    rebuild();
}

void DeviceDock::setGpuFault(const QString& message)
{
    m_fault = message;
    rebuild();
}

void DeviceDock::rebuild()
{
    std::vector<nbody::MachineSection> sections = nbody::describeMachine(m_cuda, m_threads, m_processors, m_gl);
    if (!m_fault.isEmpty()) {
        nbody::MachineSection fault{"gpuFault", "GPU fault", {}};
        fault.rows.push_back({"fault", "What happened", m_fault.toStdString(),
                              "A CUDA error during the run: it paused at the last state kept on the host"});
        const std::string lost = nbody::cudaContextLost();
        fault.rows.push_back({"context", "CUDA context",
                              lost.empty() ? "usable (the error was not sticky)"
                                           : "lost (" + lost + "): GPU kernels are unavailable until a restart",
                              {}});
        sections.push_back(std::move(fault));
    }
    m_view->setSections(std::move(sections));
    emit sectionsChanged();
}

nbody::MachineSection DeviceDock::applicationSection()
{
    nbody::MachineSection s{"application", "Application", {}};
    s.rows.push_back({"version", "N-Body Sandbox", NBODY_VERSION, {}});
    s.rows.push_back({"qt", "Qt", std::string(qVersion()) + " (built with " QT_VERSION_STR ")", {}});
    s.rows.push_back({"build", "Build",
                      nbody::builtWithCuda() ? "with CUDA kernels" : "without CUDA (CPU kernels only)", {}});
    return s;
}

void DeviceDock::showAboutMachine()
{
    if (!m_dialog) {
        auto* dialog = new QDialog(window());
        dialog->setObjectName(QStringLiteral("aboutMachineDialog"));
        dialog->setWindowTitle(tr("About this machine"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        auto* view = new MachineInfoView(dialog);
        auto update = [this, view] {
            std::vector<nbody::MachineSection> all{applicationSection()};
            all.insert(all.end(), sections().begin(), sections().end());
            view->setSections(std::move(all));
        };
        update();
        connect(this, &DeviceDock::sectionsChanged, view, update);
        auto* close = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        connect(close, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
        auto* layout = new QVBoxLayout(dialog);
        layout->addWidget(view);
        layout->addWidget(close);
        dialog->resize(720, 620);
        m_dialog = dialog;
    }
    m_dialog->show();
    m_dialog->raise();
    m_dialog->activateWindow();
}

} // namespace nbody::app
