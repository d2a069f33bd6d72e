#include "KernelDock.h"
#include "ParamWidgets.h"
#include "DockScroll.h"

#include "sim/core/Ceiling.h"
#include "sim/core/ForceAccuracy.h"
#include "sim/base/ShortestText.h"
#include "sim/core/KernelRegistry.h"
#include "contracts/Tree.h"
#include "sim/perf/Tuner.h"

#include <QComboBox>
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
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <stdexcept>

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
    column->addWidget(createTable(body));     // the registry, grouped by backend
    column->addWidget(createDetailBox(body)); // the running kernel
    column->addWidget(createLaunchBox(body)); // its launch parameters (one place to edit them)
    column->addWidget(createTreeBox(body));   // the tree rows' parameters, for tree rows only
    setScrollableWidget(this, body);

    connect(m_table, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { onCurrentItemChanged(item); });
    for (ParamForm* f : {m_launchForm, m_treeForm})
        connect(f, &ParamForm::edited, this, [this](const QString& key, const QString& text) {
            clearRefusal();
            emit paramEdited(key, text);
        });
    connect(m_tuneNow, &QPushButton::clicked, this, &KernelDock::tuneRequested);

    setKernel(QString());
    setParams(nbody::SimParams{});
}

QTreeWidget* KernelDock::createTable(QWidget* parent)
{
    m_table = new QTreeWidget(parent);
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
    return m_table;
}

QGroupBox* KernelDock::createDetailBox(QWidget* parent)
{
    auto* detailBox = new QGroupBox(tr("Selected kernel"), parent);
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
    return detailBox;
}

QGroupBox* KernelDock::createLaunchBox(QWidget* parent)
{
    auto* paramBox = new QGroupBox(tr("Launch parameters"), parent);
    auto* form = new QVBoxLayout(paramBox);
    // One parameter a row (two columns would make the dock wider than the right-hand column).
    // The table's Launch rows a single process reads (the exchange's are mpirun's).
    m_launchForm = new ParamForm(
        [](const nbody::ParamInfo& r) {
            return r.group == nbody::ParamGroup::Launch && r.readers != nbody::ParamReaders::Distributed;
        },
        paramBox);
    form->addWidget(m_launchForm);
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
    return paramBox;
}

QGroupBox* KernelDock::createTreeBox(QWidget* parent)
{
    m_treeBox = new QGroupBox(tr("Tree parameters"), parent);
    m_treeBox->setObjectName(QStringLiteral("treeParams"));
    auto* treeLayout = new QVBoxLayout(m_treeBox);
    // The main control: the force accuracy (p99), one choice per row of the running kernel's
    // calibration table (fillAccuracyChoices); θ follows from it.
    auto* accuracyForm = new QFormLayout;
    m_accuracy = new QComboBox(m_treeBox);
    m_accuracy->setObjectName(QStringLiteral("forceAccuracy"));
    // Its items are short ("≤ 0.001"; the setting each picks is in its tooltip and in the line
    // below), and it takes the row's width without asking for its longest item's: at 1366 × 768
    // the dock is about 330 px wide and "Off: θ sets it (Advanced)" was cut.
    m_accuracy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_accuracy->setMinimumContentsLength(8);
    m_accuracy->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    if (const nbody::ParamInfo* row = nbody::findParam("forceAccuracy"))
        m_accuracy->setToolTip(qstr(row->doc));
    accuracyForm->addRow(tr("Force accuracy (p99):"), m_accuracy);
    treeLayout->addLayout(accuracyForm);
    m_accuracyInfo = new QLabel(m_treeBox);
    m_accuracyInfo->setObjectName(QStringLiteral("forceAccuracyInfo"));
    m_accuracyInfo->setWordWrap(true);
    treeLayout->addWidget(m_accuracyInfo);
    connect(m_accuracy, &QComboBox::activated, this, [this](int index) {
        clearRefusal();
        emit paramEdited(QStringLiteral("forceAccuracy"), m_accuracy->itemData(index).toString());
    });
    // The advanced controls: θ itself and the leaf size (the table's other Tree rows), folded.
    m_treeAdvanced = new QToolButton(m_treeBox);
    m_treeAdvanced->setObjectName(QStringLiteral("treeAdvancedToggle"));
    m_treeAdvanced->setText(tr("Advanced: θ, leaf size, relative α"));
    m_treeAdvanced->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_treeAdvanced->setArrowType(Qt::RightArrow);
    m_treeAdvanced->setCheckable(true);
    m_treeAdvanced->setAutoRaise(true);
    treeLayout->addWidget(m_treeAdvanced);
    m_treeForm = new ParamForm(
        [](const nbody::ParamInfo& r) { return r.group == nbody::ParamGroup::Tree && r.key != "forceAccuracy"; },
        m_treeBox);
    m_treeForm->setVisible(false);
    treeLayout->addWidget(m_treeForm);
    connect(m_treeAdvanced, &QToolButton::toggled, this, [this](bool open) {
        m_treeAdvanced->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_treeForm->setVisible(open);
    });
    return m_treeBox;
}

/// "θ 0.5", "θ 1, α 0.004": a calibrated setting as the accuracy list and its line show it.
QString KernelDock::settingText(const nbody::AccuracyPoint& pt)
{
    QString t = tr("θ %1").arg(pt.theta);
    if (pt.alpha > 0)
        t += tr(", α %1").arg(pt.alpha);
    return t;
}

void KernelDock::fillAccuracyChoices()
{
    const QSignalBlocker block(m_accuracy);
    m_accuracy->clear();
    m_accuracy->addItem(tr("Off: θ sets it"), QString());
    m_accuracy->setItemData(0, tr("Off: the opening angle θ under Advanced sets the error"), Qt::ToolTipRole);
    // The settings worth choosing (ForceAccuracy.h accuracyChoices: none is beaten in both error
    // and work), each under its calibrated p99, with the setting it picks in its tooltip.
    // They are those of the tables for this system's N (ForceAccuracy.h calibrationBodies).
    for (const nbody::AccuracyPoint& pt : nbody::accuracyChoices(m_kernelId.toStdString(), std::size_t(m_bodies))) {
        m_accuracy->addItem(tr("≤ %1").arg(pt.p99, 0, 'g', 3), QString::fromStdString(nbody::shortestText(pt.p99)));
        m_accuracy->setItemData(m_accuracy->count() - 1, tr("≤ %1 (%2)").arg(pt.p99, 0, 'g', 3).arg(settingText(pt)),
                                Qt::ToolTipRole);
    }
    showAccuracy();
}

void KernelDock::showAccuracy()
{
    const QSignalBlocker block(m_accuracy);
    const double target = m_params.forceAccuracy;
    int index = 0;
    for (int i = 1; i < m_accuracy->count() && target > 0; ++i)
        if (m_accuracy->itemData(i).toString().toDouble() == target)
            index = i;
    if (target > 0 && index == 0) { // a target set elsewhere (a scenario, a restart): listed as it is
        const QString text = QString::fromStdString(nbody::shortestText(target));
        m_accuracy->addItem(tr("≤ %1").arg(target, 0, 'g', 3), text);
        index = m_accuracy->count() - 1;
    }
    m_accuracy->setCurrentIndex(index);
    const QString theta = QString::number(double(m_params.openingAngle));
    m_accuracyInfo->setToolTip({});
    if (!(target > 0)) {
        m_accuracyInfo->setText(tr("θ = %1 sets the error (Advanced).").arg(theta));
        return;
    }
    try {
        const nbody::OpeningAngleChoice c =
            nbody::chooseOpeningAngle(m_kernelId.toStdString(), target, std::size_t(m_bodies));
        m_accuracyInfo->setText(tr("%1: calibrated p99 %2, median %3 (Plummer sphere, N = %4)%5%6")
                                    .arg(settingText(c.point))
                                    .arg(c.point.p99, 0, 'g', 3)
                                    .arg(c.point.median, 0, 'g', 3)
                                    .arg(qulonglong(c.calibrationBodies))
                                    .arg(c.loosest ? tr("; the table's cheapest setting") : QString())
                                    .arg(c.largerThanCalibration ? tr("; this system is larger, and the error grows with N")
                                                                 : QString()));
        m_accuracyInfo->setToolTip(QString::fromStdString(c.note));
    } catch (const std::invalid_argument& e) {
        m_accuracyInfo->setText(QString::fromStdString(e.what()));
    }
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
    // A launch row's editor is live when the kernel reads it (paramReadBy; a declared row that
    // names no kernel rows stays live), with the row's doc as tooltip, else "Not read by …".
    const QString unused = k ? tr("Not read by %1").arg(qstr(k->name)) : QString();
    for (const QString& key : m_launchForm->keys()) {
        QWidget* e = m_launchForm->editor(key);
        const nbody::ParamInfo* row = nbody::findParam(key.toStdString());
        const bool live = k && row && (row->readers == nbody::ParamReaders::None || nbody::paramReadBy(*row, *k));
        e->setEnabled(live);
        e->setToolTip(live || !k ? qstr(row ? row->doc : std::string_view{}) : unused);
    }
    m_treeBox->setVisible(k && k->method == nbody::ForceMethod::Tree);
    fillAccuracyChoices();
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
}

void KernelDock::setBodies(qulonglong bodies)
{
    if (bodies == m_bodies)
        return;
    const std::string kernel = m_kernelId.toStdString();
    const bool otherTables = nbody::calibrationBodies(kernel, std::size_t(bodies)) !=
                             nbody::calibrationBodies(kernel, std::size_t(m_bodies));
    m_bodies = bodies;
    refreshLaunchInfo();
    if (otherTables)
        fillAccuracyChoices(); // the settings of the tables of the new N (it shows the accuracy too)
    else
        showAccuracy(); // the note on systems larger than the calibration's
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
        m_ceiling->setText(tr("not for CPU kernels"));
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
    m_launchForm->setParams(p);
    m_treeForm->setParams(p);
    m_params = p;
    showAccuracy();
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
