#include "KernelDock.h"
#include "DockScroll.h"

#include "sim/Ceiling.h"
#include "sim/KernelRegistry.h"
#include "sim/Tree.h"
#include "sim/Tuner.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QTreeWidgetItemIterator>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace nbody::app {

namespace {

enum Column { ColName, ColPrecision, ColLayout, ColumnCount };
constexpr int kIdRole = Qt::UserRole;

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString backendTitle(nbody::Backend b)
{
    return b == nbody::Backend::Cpu ? KernelDock::tr("CPU") : KernelDock::tr("CUDA");
}

QSpinBox* paramSpinBox(QWidget* parent, const QString& objectName)
{
    auto* s = new QSpinBox(parent);
    s->setObjectName(objectName);
    s->setRange(0, 1 << 20); // the kernel checks the device's limits and says which one
    s->setSpecialValueText(KernelDock::tr("auto")); // 0: tuned for this device and N, else the kernel's default
    s->setKeyboardTracking(false); // apply on Enter / focus loss / arrows, not per keystroke
    return s;
}

/// "1.97 e12" (three significant digits, the exponent apart so that it reads like the status bar).
QString scientific(double v)
{
    const int exponent = v > 0 ? int(std::floor(std::log10(v))) : 0;
    return QStringLiteral("%1 e%2").arg(v / std::pow(10.0, exponent), 0, 'f', 2).arg(exponent);
}

} // namespace

QString kernelToolTip(const nbody::KernelInfo& k)
{
    const nbody::Availability av = nbody::availability(k);
    if (av.available)
        return qstr(k.description);
    return qstr(k.description) + QStringLiteral("\n\n") +
           KernelDock::tr("Unavailable: %1").arg(QString::fromStdString(av.reason));
}

KernelDock::KernelDock(QWidget* parent) : QDockWidget(tr("Kernel"), parent)
{
    setObjectName(QStringLiteral("KernelDock"));
    auto* body = new QWidget(this);
    auto* column = new QVBoxLayout(body);

    // -- the registry, grouped by backend
    m_table = new QTreeWidget(body);
    m_table->setObjectName(QStringLiteral("kernelTable"));
    m_table->setColumnCount(ColumnCount);
    m_table->setHeaderLabels({tr("Kernel"), tr("Precision"), tr("Layout")});
    m_table->setRootIsDecorated(false);
    m_table->setItemsExpandable(false);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setUniformRowHeights(true);
    QTreeWidgetItem* group = nullptr;
    for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
        if (!group || group->data(ColName, kIdRole).toInt() != static_cast<int>(k.backend)) {
            group = new QTreeWidgetItem(m_table, {backendTitle(k.backend)});
            group->setData(ColName, kIdRole, static_cast<int>(k.backend));
            group->setFlags(Qt::ItemIsEnabled); // a heading: not selectable
            QFont bold = group->font(ColName);
            bold.setBold(true);
            group->setFont(ColName, bold);
            group->setFirstColumnSpanned(true);
        }
        // The id (as on the command line) keeps the table narrow; the name heads the tooltip.
        auto* item = new QTreeWidgetItem(group, {qstr(k.id), qstr(nbody::toString(k.precision)),
                                                 qstr(nbody::toString(k.layout))});
        item->setData(ColName, kIdRole, qstr(k.id));
        const QString tip = qstr(k.name) + QStringLiteral("\n\n") + kernelToolTip(k);
        for (int c = 0; c < ColumnCount; ++c)
            item->setToolTip(c, tip);
        if (!nbody::availability(k).available)
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
    }
    m_table->expandAll();
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(ColName, QHeaderView::Stretch);
    for (int c = ColPrecision; c < ColumnCount; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // Every row shown (the backend headings and each kernel): the table is as tall as its rows
    // and the dock scrolls as a whole when the column is shorter than that.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    int rowsHeight = 0;
    const QAbstractItemModel* model = m_table->model();
    for (int g = 0; g < model->rowCount(); ++g) {
        const QModelIndex heading = model->index(g, ColName);
        rowsHeight += m_table->sizeHintForIndex(heading).height();
        for (int i = 0; i < model->rowCount(heading); ++i)
            rowsHeight += m_table->sizeHintForIndex(model->index(i, ColName, heading)).height();
    }
    m_table->setMinimumHeight(m_table->header()->sizeHint().height() + rowsHeight + 2 * m_table->frameWidth() + 2);
    m_table->setMaximumHeight(m_table->minimumHeight());
    column->addWidget(m_table);

    // -- the running kernel
    auto* detailBox = new QGroupBox(tr("Selected kernel"), body);
    auto* detail = new QVBoxLayout(detailBox);
    m_title = new QLabel(detailBox);
    m_title->setObjectName(QStringLiteral("kernelTitle"));
    m_title->setWordWrap(true);
    auto* factsForm = new QFormLayout;
    const auto fact = [&](const QString& label, const QString& objectName) {
        auto* value = new QLabel(detailBox);
        value->setObjectName(objectName);
        value->setWordWrap(true);
        factsForm->addRow(label, value);
        return value;
    };
    // One fact a row, values wrapping: the dock is as narrow as the right-hand column (it
    // scrolls vertically when the column is short, never sideways: tst_dock_text).
    m_precision = fact(tr("Precision:"), QStringLiteral("kernelPrecision"));
    m_flops = fact(tr("Flops per interaction:"), QStringLiteral("kernelFlops"));
    m_layout = fact(tr("Layout:"), QStringLiteral("kernelLayout"));
    m_deterministic = fact(tr("Deterministic:"), QStringLiteral("kernelDeterministic"));
    m_ceiling = fact(tr("Ceiling:"), QStringLiteral("kernelCeiling"));
    m_ceiling->setToolTip(tr("Measured interactions per second over this device's issue-slot ceiling: SMs × "
                             "fp32 (or fp64) lanes per SM × clock ÷ the kernel's slots per interaction "
                             "(docs/performance.md)"));
    m_description = new QLabel(detailBox);
    m_description->setObjectName(QStringLiteral("kernelDescription"));
    m_description->setWordWrap(true);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detail->addWidget(m_title);
    detail->addLayout(factsForm);
    detail->addWidget(m_description);
    column->addWidget(detailBox);

    // -- its launch parameters (one place to edit them)
    auto* paramBox = new QGroupBox(tr("Launch parameters"), body);
    auto* form = new QVBoxLayout(paramBox);
    // One parameter a row (two columns would make the dock wider than the right-hand column).
    auto* grid = new QFormLayout;
    m_blockSize = paramSpinBox(paramBox, QStringLiteral("blockSize"));
    m_blockRows = paramSpinBox(paramBox, QStringLiteral("blockRows"));
    m_tileWidthFactor = paramSpinBox(paramBox, QStringLiteral("tileWidthFactor"));
    m_bodiesPerThread = paramSpinBox(paramBox, QStringLiteral("bodiesPerThread"));
    m_jSplit = paramSpinBox(paramBox, QStringLiteral("jSplit"));
    m_unroll = paramSpinBox(paramBox, QStringLiteral("unroll"));
    const auto place = [&](const QString& label, QSpinBox* box) { grid->addRow(label, box); };
    place(tr("Block size:"), m_blockSize);
    place(tr("Block rows:"), m_blockRows);
    place(tr("Tile width factor:"), m_tileWidthFactor);
    place(tr("Bodies per thread:"), m_bodiesPerThread);
    place(tr("J-split:"), m_jSplit);
    place(tr("Unroll:"), m_unroll);
    form->addLayout(grid);
    auto* sourceRow = new QHBoxLayout;
    m_launchInfo = new QLabel(paramBox);
    m_launchInfo->setObjectName(QStringLiteral("launchSource"));
    m_launchInfo->setWordWrap(true);
    m_launchInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tuneNow = new QPushButton(tr("Tune now"), paramBox);
    m_tuneNow->setObjectName(QStringLiteral("tuneNow"));
    m_tuneNow->setToolTip(tr("Measure this kernel's launch parameters at the current N on this device (a few "
                             "seconds, off the GUI thread) and cache them for the parameters left on auto"));
    sourceRow->addWidget(m_launchInfo, 1);
    sourceRow->addWidget(m_tuneNow, 0, Qt::AlignTop);
    form->addLayout(sourceRow);
    m_refusal = new QLabel(paramBox);
    m_refusal->setObjectName(QStringLiteral("refusal"));
    m_refusal->setWordWrap(true);
    m_refusal->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_refusal->setStyleSheet(QStringLiteral("color: #d32f2f;"));
    m_refusal->hide();
    form->addWidget(m_refusal);
    column->addWidget(paramBox);

    // -- the tree rows' parameters (SimParams::openingAngle, leafSize), for tree rows only
    m_treeBox = new QGroupBox(tr("Tree parameters"), body);
    m_treeBox->setObjectName(QStringLiteral("treeParams"));
    auto* treeForm = new QFormLayout(m_treeBox);
    m_openingAngle = new QDoubleSpinBox(m_treeBox);
    m_openingAngle->setObjectName(QStringLiteral("openingAngle"));
    m_openingAngle->setDecimals(3);
    m_openingAngle->setRange(0.001, nbody::kMaxOpeningAngle);
    m_openingAngle->setSingleStep(0.05);
    m_openingAngle->setKeyboardTracking(false);
    m_openingAngle->setToolTip(tr("Opening angle θ: a cell of size l acts as one multipole (monopole + "
                                  "quadrupole) on a group of bodies farther than l/θ plus its offset; smaller "
                                  "is more accurate and slower (docs/tree.md)"));
    m_leafSize = new QSpinBox(m_treeBox);
    m_leafSize->setObjectName(QStringLiteral("leafSize"));
    m_leafSize->setRange(1, nbody::tree::kMaxLeafSize);
    m_leafSize->setKeyboardTracking(false);
    m_leafSize->setToolTip(tr("A cell of at most this many bodies that is opened is summed body by body"));
    treeForm->addRow(tr("Opening angle θ:"), m_openingAngle);
    treeForm->addRow(tr("Leaf size:"), m_leafSize);
    column->addWidget(m_treeBox);
    setScrollableWidget(this, body);

    connect(m_table, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { onCurrentItemChanged(item); });
    const auto forward = [this](QSpinBox* box, void (KernelDock::*signal)(int)) {
        connect(box, &QSpinBox::valueChanged, this, [this, signal](int v) {
            clearRefusal();
            emit(this->*signal)(v);
        });
    };
    forward(m_blockSize, &KernelDock::blockSizeEdited);
    forward(m_blockRows, &KernelDock::blockRowsEdited);
    forward(m_tileWidthFactor, &KernelDock::tileWidthFactorEdited);
    forward(m_bodiesPerThread, &KernelDock::bodiesPerThreadEdited);
    forward(m_jSplit, &KernelDock::jSplitEdited);
    forward(m_unroll, &KernelDock::unrollEdited);
    forward(m_leafSize, &KernelDock::leafSizeEdited);
    connect(m_openingAngle, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        clearRefusal();
        emit openingAngleEdited(v);
    });
    connect(m_tuneNow, &QPushButton::clicked, this, &KernelDock::tuneRequested);

    setKernel(QString());
    setParams(nbody::SimParams{});
}

void KernelDock::onCurrentItemChanged(QTreeWidgetItem* item)
{
    if (!item || !item->parent())
        return; // a backend heading
    const QString id = item->data(ColName, kIdRole).toString();
    if (id == m_kernelId)
        return;
    clearRefusal();
    emit kernelSelected(id); // the controller answers with setKernel() (or a refusal)
}

void KernelDock::setKernel(const QString& id)
{
    if (id != m_kernelId)
        m_rate = 0; // until a step of the new kernel is timed
    m_kernelId = id;
    const nbody::KernelInfo* k = nbody::findKernel(id.toStdString());
    {
        const QSignalBlocker block(m_table);
        QTreeWidgetItem* found = nullptr;
        for (int g = 0; g < m_table->topLevelItemCount() && !found; ++g) {
            QTreeWidgetItem* group = m_table->topLevelItem(g);
            for (int i = 0; i < group->childCount(); ++i) {
                if (group->child(i)->data(ColName, kIdRole).toString() == id) {
                    found = group->child(i);
                    break;
                }
            }
        }
        m_table->setCurrentItem(found);
        if (!found)
            m_table->clearSelection();
    }
    showDetails(k);
}

void KernelDock::showDetails(const nbody::KernelInfo* k)
{
    const nbody::KernelParamUse use = k ? k->params : nbody::KernelParamUse{};
    m_blockSize->setEnabled(use.blockSize);
    m_blockRows->setEnabled(use.blockRows);
    m_tileWidthFactor->setEnabled(use.tileWidthFactor);
    m_bodiesPerThread->setEnabled(use.bodiesPerThread);
    m_jSplit->setEnabled(use.jSplit);
    m_unroll->setEnabled(use.unroll);
    m_treeBox->setVisible(k && k->method == nbody::ForceMethod::Tree);
    refreshLaunchInfo();
    if (!k) {
        m_title->setText(QStringLiteral("–"));
        for (QLabel* l : {m_precision, m_layout, m_deterministic, m_flops, m_ceiling, m_description})
            l->clear();
        return;
    }
    showCeiling();
    const QString name = qstr(k->name);
    m_title->setText(QStringLiteral("<b>%1</b> (%2, %3)")
                         .arg(name.toHtmlEscaped(), qstr(k->id), backendTitle(k->backend)));
    m_precision->setText(qstr(nbody::toString(k->precision)));
    m_layout->setText(tr("%1 (%2-byte velocities, accelerations)")
                          .arg(qstr(nbody::toString(k->layout)))
                          .arg(nbody::vectorBytes(k->layout)));
    m_deterministic->setText(k->deterministic ? tr("yes (bit-identical reruns)")
                                              : tr("no (summation order varies)"));
    m_flops->setText(QString::number(k->flopsPerInteraction));
    m_description->setText(qstr(k->description));

    const QString unused = tr("Not read by %1").arg(name);
    m_blockSize->setToolTip(use.blockSize ? (use.blockRows ? tr("CUDA threads per block along j (bodies "
                                                                "whose pull is summed)")
                                                           : tr("CUDA threads per block"))
                                          : unused);
    m_blockRows->setToolTip(use.blockRows ? tr("Rows (bodies i) per block; threads per block = block "
                                               "size × block rows")
                                          : unused);
    m_tileWidthFactor->setToolTip(use.tileWidthFactor ? tr("Bodies staged per tile = block size × factor")
                                                      : unused);
    m_bodiesPerThread->setToolTip(use.bodiesPerThread ? tr("i-bodies each thread keeps in registers (1, 2, 4, 8)")
                                                      : unused);
    m_jSplit->setToolTip(use.jSplit ? tr("Pieces the j-range is split into across blocks, summed by a "
                                         "deterministic second pass (fills the GPU at small N)")
                                    : unused);
    m_unroll->setToolTip(use.unroll ? tr("Unroll factor of the loop over a tile (1, 2, 4, 8)") : unused);
}

void KernelDock::setBodies(qulonglong bodies)
{
    if (bodies == m_bodies)
        return;
    m_bodies = bodies;
    refreshLaunchInfo();
}

void KernelDock::setTuning(bool tuning)
{
    m_tuning = tuning;
    refreshLaunchInfo();
}

void KernelDock::refreshLaunchInfo()
{
    const nbody::KernelInfo* k = nbody::findKernel(m_kernelId.toStdString());
    const bool cuda = k && k->backend == nbody::Backend::Cuda;
    m_tuneNow->setEnabled(cuda && !m_tuning && nbody::availability(*k).available);
    if (!cuda) {
        m_launchInfo->setText(k ? tr("CPU kernels have no launch parameters.") : QString());
        return;
    }
    if (m_tuning) {
        m_launchInfo->setText(tr("Tuning on this device…"));
        return;
    }
    const std::size_t n = std::max<std::size_t>(1, std::size_t(m_bodies));
    try {
        const nbody::ResolvedLaunch r = nbody::resolveLaunch(*k, m_params, n);
        const QString values = QString::fromStdString(nbody::describeLaunch(*k, nbody::launchValues(r.args)));
        bool anySet = false, anyDefault = false;
        const auto& table = nbody::launchParams();
        for (std::size_t i = 0; i < table.size(); ++i) {
            if (!nbody::reads(k->params, table[i].param))
                continue;
            anySet |= r.source[i] == nbody::LaunchSource::Set;
            anyDefault |= r.source[i] == nbody::LaunchSource::Default;
        }
        QString text;
        if (r.tuned)
            text = tr("tuned on this device %1: %2 — %3 interactions/s")
                       .arg(QString::fromStdString(r.tuned->date), values,
                            QString::number(r.tuned->interactionsPerSecond, 'g', 2));
        else if (anyDefault)
            text = tr("default (not tuned yet): %1").arg(values);
        else
            text = tr("set: %1").arg(values);
        if (anySet && (r.tuned || anyDefault))
            text += tr(" (with your values: %1)").arg(QString::fromStdString(nbody::describeResolved(*k, r)));
        m_launchInfo->setText(text);
        m_launchInfo->setToolTip(QString::fromStdString(nbody::describeResolved(*k, r)));
    } catch (const std::exception& e) {
        // Defaults that depend on the device (the blocked kernels' j-split: its SM count) need one.
        if (const nbody::Availability a = nbody::availability(*k); !a.available)
            m_launchInfo->setText(tr("chosen on a CUDA device (auto: tuned there, else the kernel's defaults); "
                                     "not available here: %1")
                                      .arg(QString::fromStdString(a.reason)));
        else
            m_launchInfo->setText(tr("default (the device could not be asked: %1)").arg(QString::fromUtf8(e.what())));
    }
}

void KernelDock::setDevice(const std::optional<nbody::CudaDeviceInfo>& device)
{
    m_device = device;
    showCeiling();
}

void KernelDock::setMeasuredRate(const QString& kernelId, double interactionsPerSecond)
{
    if (kernelId != m_kernelId)
        return;
    m_rate = interactionsPerSecond > 0 ? interactionsPerSecond : 0;
    showCeiling();
}

void KernelDock::showCeiling()
{
    const nbody::KernelInfo* k = nbody::findKernel(m_kernelId.toStdString());
    if (!k) {
        m_ceiling->clear();
        return;
    }
    if (k->backend != nbody::Backend::Cuda) {
        m_ceiling->setText(tr("not defined for CPU kernels"));
        return;
    }
    if (!m_device) {
        m_ceiling->setText(tr("no CUDA device to compute it for"));
        return;
    }
    if (k->slotsPerInteraction <= 0) {
        m_ceiling->setText(tr("not stated for this kernel (no slots per interaction)"));
        return;
    }
    const double ceiling = nbody::interactionCeiling(*k, *m_device);
    if (!(ceiling > 0)) {
        m_ceiling->setText(tr("unknown for this device (compute capability %1.%2, %3 SMs, %4 kHz)")
                               .arg(m_device->major)
                               .arg(m_device->minor)
                               .arg(m_device->multiprocessors)
                               .arg(m_device->clockKHz));
        return;
    }
    const QString of = tr("%1 interactions/s for %2 slots per interaction")
                           .arg(scientific(ceiling))
                           .arg(k->slotsPerInteraction);
    if (m_rate > 0)
        m_ceiling->setText(tr("%1 % of this device's ceiling (%2)")
                               .arg(100 * nbody::shareOfCeiling(m_rate, ceiling), 0, 'f', 1)
                               .arg(of));
    else
        m_ceiling->setText(tr("this device's ceiling is %1; no rate measured yet").arg(of));
}

void KernelDock::setParams(const nbody::SimParams& p)
{
    const auto show = [](QSpinBox* box, int value) {
        const QSignalBlocker block(box);
        box->setValue(value);
    };
    show(m_blockSize, p.blockSize);
    show(m_blockRows, p.blockRows);
    show(m_tileWidthFactor, p.tileWidthFactor);
    show(m_bodiesPerThread, p.bodiesPerThread);
    show(m_jSplit, p.jSplit);
    show(m_unroll, p.unroll);
    show(m_leafSize, p.leafSize);
    {
        const QSignalBlocker block(m_openingAngle);
        m_openingAngle->setValue(double(p.openingAngle));
    }
    m_params = p;
    refreshLaunchInfo();
}

void KernelDock::showRefusal(const QString& message)
{
    m_refusal->setText(message);
    m_refusal->setToolTip(message);
    m_refusal->show();
}

void KernelDock::clearRefusal()
{
    m_refusal->clear();
    m_refusal->hide();
}

void KernelDock::refreshAvailability()
{
    for (QTreeWidgetItemIterator it(m_table); *it; ++it) {
        QTreeWidgetItem* item = *it;
        const nbody::KernelInfo* k = nbody::findKernel(item->data(ColName, kIdRole).toString().toStdString());
        if (!k)
            continue; // a backend heading
        const QString tip = qstr(k->name) + QStringLiteral("\n\n") + kernelToolTip(*k);
        for (int c = 0; c < ColumnCount; ++c)
            item->setToolTip(c, tip);
        if (!nbody::availability(*k).available)
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
    }
}

} // namespace nbody::app
