#include "ValidationDock.h"
#include "BodyCount.h"
#include "DockScroll.h"

#include "sim/validate/ValidationReport.h"

#include "ValidationReportDialog.h"

#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"
#include "sim/validate/Validation.h"

#include <QAction>
#include <QComboBox>
#include <QScrollArea>
#include <QTimer>
#include <QFormLayout>
#include <QGroupBox>
#include <QMessageBox>
#include <QHBoxLayout>
#include <QMainWindow>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>
#include <exception>

namespace nbody::app {

namespace {

constexpr int kKernelRole = Qt::UserRole;     ///< const KernelInfo* (as quintptr)
constexpr int kAvailableRole = Qt::UserRole + 1;

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

const nbody::KernelInfo* kernelOf(const QListWidgetItem* item)
{
    return reinterpret_cast<const nbody::KernelInfo*>(item->data(kKernelRole).value<quintptr>());
}

/// "12 s", "3 min 20 s", "1 h 05 min".
QString duration(double seconds)
{
    const qint64 s = qint64(std::llround(std::max(0.0, seconds)));
    if (s < 60)
        return ValidationDock::tr("%1 s").arg(s);
    if (s < 3600)
        return ValidationDock::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return ValidationDock::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

} // namespace

void ValidationDock::followArea()
{
    auto* window = qobject_cast<QMainWindow*>(parentWidget());
    const Qt::DockWidgetArea area = window ? window->dockWidgetArea(this) : Qt::NoDockWidgetArea;
    const bool wide = !isFloating() && (area == Qt::TopDockWidgetArea || area == Qt::BottomDockWidgetArea);
    m_rows->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    // In a column the kernel list takes the spare height; side by side the list and the result
    // share the spare width.
    m_rows->setStretch(2, wide ? 1 : 0);
}

ValidationDock::ValidationDock(QWidget* parent) : QDockWidget(tr("Validation"), parent)
{
    setObjectName(QStringLiteral("ValidationDock"));
    qRegisterMetaType<std::shared_ptr<const nbody::app::SystemCopy>>();
    auto* body = new QWidget(this);
    // The kernels, the run's settings, then start, progress and result: one above the other in
    // a column (the right-hand area, floating), three columns side by side in the wide bottom
    // area (the default), where the result is then at the top of its column, in sight without
    // scrolling (under the settings it was below the fold of a 1366 × 768 screen).
    m_rows = new QBoxLayout(QBoxLayout::TopToBottom, body);
    auto* settings = new QVBoxLayout;
    auto* column = new QVBoxLayout;

    m_rows->addWidget(createKernelBox(body), 1);
    m_rows->addLayout(settings);
    m_rows->addLayout(column);
    settings->addWidget(createRunBox(body));
    settings->addStretch(); // side by side: at the top
    createStartRows(body, column); // start, progress, result
    column->addStretch();
    setScrollableWidget(this, body);
    connect(this, &QDockWidget::dockLocationChanged, this, &ValidationDock::followArea);
    connect(this, &QDockWidget::topLevelChanged, this, &ValidationDock::followArea);

    m_reportAction = new QAction(tr("Validation re&port…"), this);
    m_reportAction->setObjectName(QStringLiteral("validationReportAction"));
    m_reportAction->setStatusTip(tr("Show the last validation report (run one from the Validation dock)"));
    m_reportAction->setEnabled(false);
    connect(m_reportAction, &QAction::triggered, this, &ValidationDock::showReport);

    updateSystemChoices();
    m_bodies->setEnabled(false);
}

QGroupBox* ValidationDock::createKernelBox(QWidget* parent)
{
    auto* kernelBox = new QGroupBox(tr("Kernels"), parent);
    auto* kernelColumn = new QVBoxLayout(kernelBox);
    m_kernels = new QListWidget(kernelBox);
    m_kernels->setObjectName(QStringLiteral("validationKernels"));
    m_kernels->setToolTip(tr("Kernels to compare with the fp64 OpenMP reference (Space checks the current row)"));
    m_kernels->setUniformItemSizes(true);
    for (const nbody::KernelInfo& k : nbody::kernelRegistry())
        addKernelRow(&k);
    kernelColumn->addWidget(m_kernels, 1);
    auto* kernelButtons = new QHBoxLayout;
    auto* allButton = new QPushButton(tr("A&ll available"), kernelBox);
    allButton->setObjectName(QStringLiteral("validationAll"));
    allButton->setToolTip(tr("Check every kernel that can run here"));
    auto* noneButton = new QPushButton(tr("N&one"), kernelBox);
    noneButton->setObjectName(QStringLiteral("validationNone"));
    noneButton->setToolTip(tr("Uncheck every kernel"));
    kernelButtons->addWidget(allButton);
    kernelButtons->addWidget(noneButton);
    kernelButtons->addStretch(1);
    kernelColumn->addLayout(kernelButtons);
    m_kernelBox = kernelBox;
    connect(allButton, &QPushButton::clicked, this, [this] {
        m_userChecked = true;
        for (int i = 0; i < m_kernels->count(); ++i) {
            QListWidgetItem* item = m_kernels->item(i);
            // the reference row matches itself exactly: "all" means the others (as `--kernel all`)
            const bool want = item->data(kAvailableRole).toBool() && kernelOf(item)->id != "reference";
            item->setCheckState(want ? Qt::Checked : Qt::Unchecked);
        }
    });
    connect(noneButton, &QPushButton::clicked, this, [this] {
        m_userChecked = true;
        for (int i = 0; i < m_kernels->count(); ++i)
            m_kernels->item(i)->setCheckState(Qt::Unchecked);
    });
    connect(m_kernels, &QListWidget::itemChanged, this, [this] {
        if (!m_kernels->signalsBlocked())
            m_userChecked = true;
    });
    return kernelBox;
}

QGroupBox* ValidationDock::createRunBox(QWidget* parent)
{
    auto* runBox = new QGroupBox(tr("Run"), parent);
    auto* form = new QFormLayout(runBox);
    m_system = new QComboBox(runBox);
    m_system->setObjectName(QStringLiteral("validationSystem"));
    m_system->addItem(QString(), int(SystemChoice::Current));
    m_system->addItem(tr("Plummer sphere of N bodies"), int(SystemChoice::Default));
    m_system->setToolTip(tr("Current system: a copy of the running state (the run goes on undisturbed).\n"
                            "Plummer sphere: N bodies in virial equilibrium with the plummer scenario's G, dt "
                            "and ε², as `nbody validate --bodies N` makes it (seed 42)."));
    m_bodies = new QSpinBox(runBox);
    m_bodies->setObjectName(QStringLiteral("validationBodies"));
    m_bodies->setRange(1, 1 << 20);
    m_bodies->setValue(1024);
    m_bodies->setGroupSeparatorShown(true);
    m_bodies->setToolTip(tr("N of the Plummer sphere (each kernel and the fp64 reference cost O(N²) per step)"));
    m_steps = new QSpinBox(runBox);
    m_steps->setObjectName(QStringLiteral("validationSteps"));
    m_steps->setRange(1, 10'000'000);
    m_steps->setValue(1000);
    m_steps->setGroupSeparatorShown(true);
    m_steps->setToolTip(tr("K: steps of every run (the predecessor compared after 1000)"));
    m_checkpoints = new QSpinBox(runBox);
    m_checkpoints->setObjectName(QStringLiteral("validationCheckpoints"));
    m_checkpoints->setRange(1, 10'000'000);
    m_checkpoints->setValue(50);
    m_checkpoints->setToolTip(tr("Points of the error growth curve besides step 0 (every max(1, K / checkpoints) "
                                 "steps)"));
    form->addRow(tr("S&ystem:"), m_system);
    form->addRow(tr("&Bodies (N):"), m_bodies);
    form->addRow(tr("S&teps (K):"), m_steps);
    form->addRow(tr("Check&points:"), m_checkpoints);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    connect(m_system, &QComboBox::currentIndexChanged, this,
            [this] { m_bodies->setEnabled(m_system->currentData().toInt() == int(SystemChoice::Default)); });
    return runBox;
}

void ValidationDock::createStartRows(QWidget* parent, QVBoxLayout* column)
{
    m_startButton = new QPushButton(tr("Sta&rt validation"), parent);
    m_startButton->setObjectName(QStringLiteral("validationStart"));
    m_startButton->setToolTip(tr("Run the checked kernels and the fp64 reference side by side, off the GUI "
                                 "thread; the simulation keeps running"));
    connect(m_startButton, &QPushButton::clicked, this, [this] {
        if (running())
            cancel();
        else
            start();
    });
    m_progress = new QProgressBar(parent);
    m_progress->setObjectName(QStringLiteral("validationProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_status = new QLabel(tr("Idle"), parent);
    m_status->setObjectName(QStringLiteral("validationStatus"));
    m_status->setWordWrap(true);
    m_result = new QLabel(parent);
    m_result->setObjectName(QStringLiteral("validationResult"));
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    m_result->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_result->setText(tr("No report yet."));
    connect(m_result, &QLabel::linkActivated, this, [this] { showReport(); });
    column->addWidget(m_startButton);
    column->addWidget(m_progress);
    column->addWidget(m_status);
    column->addWidget(m_result);
}

ValidationDock::~ValidationDock()
{
    m_stop.request_stop();
    joinWorker();
}

void ValidationDock::addKernelRow(const nbody::KernelInfo* k)
{
    const nbody::Availability av = nbody::availability(*k);
    auto* item = new QListWidgetItem(tr("%1 — %2, %3").arg(qstr(k->id), qstr(nbody::toString(k->precision)),
                                                           k->backend == nbody::Backend::Cpu ? tr("CPU") : tr("CUDA")),
                                     m_kernels);
    item->setData(kKernelRole, QVariant::fromValue(quintptr(k)));
    item->setData(kAvailableRole, av.available);
    item->setCheckState(Qt::Unchecked);
    if (av.available) {
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setToolTip(qstr(k->name) + QStringLiteral("\n\n") + qstr(k->description));
    } else {
        item->setFlags(Qt::ItemIsSelectable); // greyed out, cannot be checked
        item->setToolTip(qstr(k->name) + QStringLiteral("\n\n") +
                         tr("Unavailable: %1").arg(QString::fromStdString(av.reason)));
    }
}

void ValidationDock::setCheckedKernels(const QStringList& ids)
{
    const QSignalBlocker block(m_kernels);
    for (int i = 0; i < m_kernels->count(); ++i) {
        QListWidgetItem* item = m_kernels->item(i);
        item->setCheckState(ids.contains(qstr(kernelOf(item)->id)) ? Qt::Checked : Qt::Unchecked);
    }
    m_userChecked = true;
}

QStringList ValidationDock::checkedKernels() const
{
    QStringList ids;
    for (int i = 0; i < m_kernels->count(); ++i)
        if (m_kernels->item(i)->checkState() == Qt::Checked)
            ids << qstr(kernelOf(m_kernels->item(i))->id);
    return ids;
}

void ValidationDock::setSystemChoice(SystemChoice choice)
{
    m_system->setCurrentIndex(m_system->findData(int(choice)));
}

void ValidationDock::setDefaultBodies(int n) { m_bodies->setValue(n); }
void ValidationDock::setSteps(int steps) { m_steps->setValue(steps); }
void ValidationDock::setCheckpoints(int checkpoints) { m_checkpoints->setValue(checkpoints); }

void ValidationDock::setKernel(const QString& id)
{
    m_kernelId = id;
    if (m_userChecked)
        return;
    const QSignalBlocker block(m_kernels);
    for (int i = 0; i < m_kernels->count(); ++i) {
        QListWidgetItem* item = m_kernels->item(i);
        item->setCheckState(qstr(kernelOf(item)->id) == id && item->data(kAvailableRole).toBool() ? Qt::Checked
                                                                                                   : Qt::Unchecked);
    }
}

void ValidationDock::setParams(const nbody::SimParams& params)
{
    m_params = params;
}

void ValidationDock::setBodies(qulonglong n)
{
    m_currentBodies = n;
    updateSystemChoices();
}

void ValidationDock::updateSystemChoices()
{
    const int i = m_system->findData(int(SystemChoice::Current));
    m_system->setItemText(i, m_currentBodies ? tr("Current system (N = %1)").arg(QLocale().toString(m_currentBodies))
                                             : tr("Current system"));
}

// ---- running --------------------------------------------------------------------------------

void ValidationDock::start()
{
    if (running())
        return;
    if (checkedKernels().isEmpty()) {
        showError(tr("Check at least one kernel."));
        return;
    }
    m_progress->setValue(0);
    if (m_system->currentData().toInt() == int(SystemChoice::Current)) {
        setPhase(Phase::WaitingForSystem);
        m_status->setText(tr("Copying the current system…"));
        emit systemRequested();
        return;
    }
    // The default system, made on the worker thread (a large N takes a moment).
    launch(nullptr);
}

void ValidationDock::setSystem(std::shared_ptr<const SystemCopy> system)
{
    if (m_phase != Phase::WaitingForSystem || !system)
        return; // not asked for (cancelled meanwhile)
    launch(std::move(system));
}

bool ValidationDock::confirmLongRun(std::size_t bodies, double seconds)
{
    if (m_confirmLongRun)
        return m_confirmLongRun(bodies, seconds);
    const QString time = seconds < 7200 ? tr("%1 minutes").arg(std::lround(seconds / 60))
                                        : tr("%1 hours").arg(seconds / 3600, 0, 'g', 2);
    return QMessageBox::question(this, tr("Long validation"),
                                 tr("Validating %1 for %2 steps will take about %3 on this machine: the "
                                    "fp64 reference runs on the CPU and costs N² interactions per step. "
                                    "Cancel stops it after the current step.\n\nStart it anyway?")
                                     .arg(bodyCountGrouped(bodies))
                                     .arg(QLocale().toString(m_steps->value()))
                                     .arg(time),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
}

void ValidationDock::systemFailed(const QString& message)
{
    if (m_phase != Phase::WaitingForSystem)
        return;
    setPhase(Phase::Idle);
    m_status->setText(tr("Failed."));
    showError(tr("The current system could not be copied: %1").arg(message));
    emit runEnded(false, message);
}

void ValidationDock::launch(std::shared_ptr<const SystemCopy> system)
{
    nbody::ValidationConfig config;
    for (int i = 0; i < m_kernels->count(); ++i)
        if (m_kernels->item(i)->checkState() == Qt::Checked)
            config.kernels.push_back(kernelOf(m_kernels->item(i)));
    config.steps = std::uint64_t(m_steps->value());
    config.checkpoints = m_checkpoints->value();
    // The default system is built on the worker thread (a large N takes a moment): a Plummer
    // sphere of N bodies, as `nbody validate --bodies N` makes it, with the plummer scenario's
    // G, dt and ε², and the launch parameters in use in the app.
    const std::size_t defaultBodies = std::size_t(m_bodies->value());
    const nbody::SimParams launchParams = m_params;
    if (system) {
        config.params = system->params;
        config.system = QStringLiteral("%1 at step %2, t = %3 (copied from the app, kernel %4)")
                            .arg(system->source)
                            .arg(system->world.step)
                            .arg(system->world.time, 0, 'g', 6)
                            .arg(system->kernelId)
                            .toStdString();
    }

    // The fp64 reference (and any CPU kernel) costs N² per step on the CPU: ask before a run
    // predicted to take longer than ten minutes here (measured on 2048 bodies, ~0.1 s).
    const std::size_t n = system ? system->world.size() : defaultBodies;
    const double predicted = nbody::estimateValidationSeconds(n, config.steps, config.checkpoints, config.kernels);
    if (predicted > 600 && !confirmLongRun(n, predicted)) {
        setPhase(Phase::Idle);
        m_status->setText(tr("Not started."));
        emit runEnded(true, QString());
        return;
    }

    m_stop = std::stop_source();
    const std::stop_token token = m_stop.get_token();
    setPhase(Phase::Running);
    m_status->setText(tr("Starting…"));
    m_clock.start();
    m_worker = QThread::create([this, config, defaultBodies, launchParams, system, token]() mutable {
        std::shared_ptr<const nbody::ValidationReport> report;
        bool cancelled = false;
        QString error;
        try {
            const auto progress = [this](const nbody::ValidationProgress& p) {
                QMetaObject::invokeMethod(this, [this, p] { onProgress(p); }, Qt::QueuedConnection);
            };
            if (system) {
                report = std::make_shared<const nbody::ValidationReport>(
                    nbody::validate(system->world, system->exact, config, progress, token));
            } else {
                const nbody::BuiltScenario built = nbody::buildScenario(nbody::scenarioSpec("plummer", defaultBodies));
                config.params = built.params;
                config.params.blockSize = launchParams.blockSize;
                config.params.blockRows = launchParams.blockRows;
                config.params.tileWidthFactor = launchParams.tileWidthFactor;
                config.system = built.summary + " (as nbody validate --bodies " + std::to_string(defaultBodies) + ")";
                report = std::make_shared<const nbody::ValidationReport>(
                    nbody::validate(built.bodies.world, built.bodies.exact, config, progress, token));
            }
        } catch (const nbody::ValidationCancelled&) {
            cancelled = true;
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        QMetaObject::invokeMethod(
            this, [this, report, cancelled, error] { onFinished(report, cancelled, error); }, Qt::QueuedConnection);
    });
    m_worker->setObjectName(QStringLiteral("validation"));
    m_worker->start(QThread::LowPriority); // the simulation's thread and the GUI come first
}

void ValidationDock::onProgress(const nbody::ValidationProgress& p)
{
    if (m_phase != Phase::Running)
        return;
    const double f = std::clamp(p.fraction(), 0.0, 1.0);
    m_progress->setValue(int(std::lround(f * 1000)));
    QString phase = QString::fromStdString(p.phase);
    if (!phase.isEmpty())
        phase[0] = phase[0].toUpper();
    QString text = tr("%1: step %2 of %3")
                       .arg(phase)
                       .arg(QLocale().toString(qulonglong(p.step)), QLocale().toString(qulonglong(p.steps)));
    const double elapsed = double(m_clock.elapsed()) * 1e-3;
    if (f > 0.0 && f < 1.0)
        text += tr(" · about %1 left").arg(duration(elapsed * (1.0 - f) / f));
    m_status->setText(text);
    m_status->setToolTip(tr("%1 elapsed").arg(duration(elapsed)));
}

void ValidationDock::onFinished(std::shared_ptr<const nbody::ValidationReport> report, bool cancelled,
                                const QString& error)
{
    joinWorker();
    if (m_phase != Phase::Running)
        return;
    setPhase(Phase::Idle);
    const double elapsed = double(m_clock.elapsed()) * 1e-3;
    if (report) {
        m_report = std::move(report);
        m_progress->setValue(m_progress->maximum());
        m_status->setText(tr("Finished in %1.").arg(duration(elapsed)));
        const bool all = m_report->allPass();
        m_result->setStyleSheet(QString());
        m_result->setText(tr("<b style=\"color:%1\">%2</b> — <a href=\"report\">View report</a>")
                              .arg(all ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"))
                              .arg(QString::fromStdString(nbody::validationVerdictLine(*m_report)).toHtmlEscaped()));
        QString tip = tr("N = %1, %2 steps").arg(m_report->bodies).arg(m_report->steps);
        for (const std::string& w : m_report->warnings)
            tip += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
        m_result->setToolTip(tip);
        if (!m_report->warnings.empty())
            m_result->setText(m_result->text() + tr(" · ⚠ %n warning(s)", nullptr, int(m_report->warnings.size())));
        m_reportAction->setEnabled(true);
        if (m_dialog)
            m_dialog->setReport(m_report);
        showResult();
        emit reportReady(m_report);
        return;
    }
    m_progress->setValue(0);
    if (cancelled) {
        m_status->setText(tr("Cancelled after %1.").arg(duration(elapsed)));
        m_result->setStyleSheet(QString());
        m_result->setText(m_report ? tr("<a href=\"report\">View the last report</a>") : QString());
        emit runEnded(true, QString());
    } else {
        m_status->setText(tr("Failed."));
        showError(tr("Validation failed: %1").arg(error));
        emit runEnded(false, error);
    }
}

void ValidationDock::cancel()
{
    if (m_phase == Phase::WaitingForSystem) {
        setPhase(Phase::Idle);
        m_status->setText(tr("Cancelled."));
        emit runEnded(true, QString());
        return;
    }
    if (m_phase == Phase::Running) {
        m_stop.request_stop(); // the engine stops at its next chunk; onFinished reports it
        m_startButton->setEnabled(false);
        m_status->setText(tr("Cancelling…"));
    }
}

void ValidationDock::joinWorker()
{
    if (!m_worker)
        return;
    m_worker->wait();
    delete m_worker;
    m_worker = nullptr;
}

void ValidationDock::setPhase(Phase phase)
{
    m_phase = phase;
    const bool idle = phase == Phase::Idle;
    m_startButton->setEnabled(true);
    m_startButton->setText(idle ? tr("Sta&rt validation") : tr("&Cancel"));
    m_startButton->setToolTip(idle ? tr("Run the checked kernels and the fp64 reference side by side, off the GUI "
                                        "thread; the simulation keeps running")
                                   : tr("Stop the validation (no report): after the current step on the CPU, the current chunk of "
                                        "steps on the GPU"));
    for (QWidget* w : {m_kernelBox, static_cast<QWidget*>(m_system),
                       static_cast<QWidget*>(m_steps), static_cast<QWidget*>(m_checkpoints)})
        w->setEnabled(idle);
    m_bodies->setEnabled(idle && m_system->currentData().toInt() == int(SystemChoice::Default));
    if (!idle) {
        m_result->setStyleSheet(QString());
        if (m_report)
            m_result->setText(tr("Running… (the last report stays available: <a href=\"report\">View report</a>)"));
        else
            m_result->setText(tr("Running…"));
    }
}

void ValidationDock::showError(const QString& message)
{
    m_result->setStyleSheet(QStringLiteral("color: #d32f2f;"));
    m_result->setText(message.toHtmlEscaped());
    m_result->setToolTip(message);
    showResult();
}

void ValidationDock::showResult()
{
    // In a column (the right-hand area) the result is last: the dock scrolls to it once its
    // new text is laid out.
    QTimer::singleShot(0, this, [this] {
        if (auto* area = qobject_cast<QScrollArea*>(widget()))
            area->ensureWidgetVisible(m_result);
    });
}

ValidationReportDialog* ValidationDock::reportDialog()
{
    if (!m_dialog) {
        m_dialog = new ValidationReportDialog(parentWidget() ? parentWidget() : this);
        if (m_report)
            m_dialog->setReport(m_report);
    }
    return m_dialog;
}

void ValidationDock::showReport()
{
    if (!m_report)
        return;
    ValidationReportDialog* d = reportDialog();
    d->show();
    d->raise();
    d->activateWindow();
}

} // namespace nbody::app
