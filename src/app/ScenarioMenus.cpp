#include "ScenarioMenus.h"

#include "sim/base/DeviceInfo.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QActionGroup>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>

namespace nbody::app {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

const QString kFilter = QStringLiteral("Scenario files (*.json);;All files (*)");

} // namespace

ScenarioMenus::ScenarioMenus(QWidget* dialogParent) : QObject(dialogParent), m_parent(dialogParent)
{
    m_newMenu = new QMenu(tr("&New from scenario"), dialogParent);
    m_newMenu->setToolTipsVisible(true);
    for (const ScenarioInfo& s : scenarioRegistry()) {
        QAction* a = m_newMenu->addAction(qstr(s.name) + QStringLiteral("…"));
        a->setToolTip(qstr(s.description) + QStringLiteral("\n\nUnits: ") + qstr(s.units));
        a->setStatusTip(qstr(s.description));
        a->setData(qstr(s.id));
        connect(a, &QAction::triggered, this, [this, a] { askAndCreate(a->data().toString()); });
    }
    m_open = new QAction(tr("Open s&cenario…"), this);
    m_open->setStatusTip(tr("Open a scenario file (JSON: parameters and a generator or a snapshot)"));
    connect(m_open, &QAction::triggered, this, &ScenarioMenus::openFile);
    m_save = new QAction(tr("Save sc&enario…"), this);
    m_save->setStatusTip(tr("Save the current system's recipe and parameters as a scenario file (an edited "
                            "system's bodies go beside it, so the scenario opens with them)"));
    connect(m_save, &QAction::triggered, this, &ScenarioMenus::saveFile);

    m_integratorMenu = new QMenu(tr("&Integrator"), dialogParent);
    m_integratorMenu->setToolTipsVisible(true);
    m_integrators = new QActionGroup(this);
    m_integrators->setExclusive(true);
    for (const IntegratorInfo& i : integratorRegistry()) {
        QAction* a = m_integratorMenu->addAction(integratorTitle(i));
        a->setCheckable(true);
        a->setData(qstr(i.id));
        a->setToolTip(qstr(i.description));
        a->setStatusTip(qstr(i.description));
        m_integrators->addAction(a);
        connect(a, &QAction::triggered, this, [this, a] {
            const QString id = a->data().toString();
            if (id != m_current)
                emit integratorRequested(id);
        });
    }
}

QString ScenarioMenus::integratorTitle(const IntegratorInfo& i)
{
    const std::size_t evaluations = i.weights.size();
    return evaluations == 1 ? tr("%1 (order %2, 1 force evaluation per step)").arg(qstr(i.name)).arg(i.order)
                            : tr("%1 (order %2, %3 force evaluations per step)")
                                  .arg(qstr(i.name))
                                  .arg(i.order)
                                  .arg(evaluations);
}

void ScenarioMenus::addFileActions(QMenu* file)
{
    file->addMenu(m_newMenu);
    file->addAction(m_open);
    file->addAction(m_save);
}

void ScenarioMenus::setIntegrator(const QString& id)
{
    m_current = id;
    for (QAction* a : m_integrators->actions())
        a->setChecked(a->data().toString() == id);
}

void ScenarioMenus::askAndCreate(const QString& id)
{
    const ScenarioInfo* row = findScenario(id.toStdString());
    if (!row)
        return;
    QDialog dialog(m_parent);
    dialog.setWindowTitle(tr("New: %1").arg(qstr(row->name)));
    auto* form = new QFormLayout(&dialog);
    auto* about = new QLabel(qstr(row->description) + QStringLiteral("<br><i>") + qstr(row->units).toHtmlEscaped() +
                                 QStringLiteral("</i>"),
                             &dialog);
    about->setWordWrap(true);
    form->addRow(about);
    const Suggestion suggestion = suggest(*row);
    auto* bodies = new QSpinBox(&dialog);
    bodies->setObjectName(QStringLiteral("bodies"));
    // 0 can be typed (a spin box from 1 would put the previous value back without a word); it is
    // refused below, in words, with OK disabled until N is at least 1.
    bodies->setRange(0, 1 << 28);
    bodies->setValue(int(suggestion.bodies));
    bodies->setEnabled(!row->fixedBodies);
    bodies->setToolTip(row->fixedBodies ? tr("This scenario's bodies are fixed")
                                        : tr("Number of bodies N; suggested: the N that %1 steps about 25 times a "
                                             "second (the scenario's default is %2)")
                                              .arg(suggestion.kernel)
                                              .arg(row->defaultBodies));
    form->addRow(tr("Bodies (N):"), bodies);
    auto* bodiesProblem = new QLabel(tr("A system needs at least 1 body."), &dialog);
    bodiesProblem->setObjectName(QStringLiteral("bodiesProblem"));
    bodiesProblem->setStyleSheet(QStringLiteral("color: #d32f2f;"));
    bodiesProblem->hide();
    form->addRow(QString(), bodiesProblem);
    auto* prediction = new QLabel(predictionText(suggestion, suggestion.bodies), &dialog);
    prediction->setObjectName(QStringLiteral("prediction"));
    prediction->setWordWrap(true);
    form->addRow(tr("Time per step:"), prediction);
    connect(bodies, &QSpinBox::valueChanged, prediction,
            [prediction, suggestion](int n) { prediction->setText(predictionText(suggestion, std::size_t(std::max(n, 0)))); });
    auto* seed = new QSpinBox(&dialog);
    seed->setRange(0, 1 << 30);
    seed->setValue(42);
    seed->setEnabled(!row->fixedBodies);
    form->addRow(tr("Seed:"), seed);
    form->addRow(new QLabel(tr("dt %1, ε² %2, G %3; integrator %4, kernel %5")
                                .arg(double(row->dt))
                                .arg(double(row->eps2))
                                .arg(row->G)
                                .arg(qstr(row->integrator), row->kernel.empty() ? tr("(current)") : qstr(row->kernel)),
                            &dialog));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    const auto checkBodies = [bodiesProblem, buttons](int n) {
        bodiesProblem->setVisible(n < 1);
        buttons->button(QDialogButtonBox::Ok)->setEnabled(n >= 1);
    };
    connect(bodies, &QSpinBox::valueChanged, &dialog, checkBodies);
    checkBodies(bodies->value());
    if (dialog.exec() != QDialog::Accepted)
        return;
    // All pairs cost N² per force evaluation. Without a GPU a very large N means minutes per step,
    // and a step in progress cannot be interrupted (Pause and Quit wait for it): ask first.
    const qulonglong n = row->fixedBodies ? 0 : qulonglong(bodies->value());
    if (!confirmLargeSystem(n))
        return;
    emit newScenarioRequested(id, n, quint64(seed->value()));
}

bool ScenarioMenus::confirmLargeSystem(qulonglong n)
{
    bool gpu = false;
    for (const nbody::KernelInfo& k : nbody::kernelRegistry())
        gpu = gpu || (k.backend == nbody::Backend::Cuda && nbody::availability(k).available);
    if (!gpu && n > 100000) {
        const double seconds = double(n) * double(n) / 2e9; // ~2e9 interactions/s on 16 CPU threads
        const auto answer = QMessageBox::question(
            m_parent, tr("A very large system on the CPU"),
            tr("%L1 bodies on the CPU kernels need %2 interactions per force evaluation: about %3 s per "
               "step even on 16 cores (much longer on a laptop), and Pause and Quit wait for the step in "
               "progress. Create it anyway?")
                .arg(n)
                .arg(double(n) * double(n), 0, 'g', 2)
                .arg(seconds, 0, 'f', 0),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        return answer == QMessageBox::Yes;
    }
    return true;
}

ScenarioMenus::Suggestion ScenarioMenus::suggest(const nbody::ScenarioInfo& row, double stepsPerSecond)
{
    Suggestion s;
    s.bodies = row.defaultBodies;
    s.kernel = row.kernel.empty() ? m_kernel : qstr(row.kernel);
    if (const IntegratorInfo* integrator = findIntegrator(row.integrator))
        s.evaluationsPerStep = int(integrator->weights.size());
    const nbody::KernelInfo* k = nbody::findKernel(s.kernel.toStdString());
    if (!k || !nbody::availability(*k).available)
        return s;
    auto it = m_timings.find(s.kernel);
    if (it == m_timings.end()) {
        try { // once per kernel: a few ms (1024 bodies on the CPU, 65 536 on a GPU)
            int sms = 0;
            if (k->backend == nbody::Backend::Cuda)
                if (const nbody::CudaRuntimeInfo cuda = nbody::queryCuda(); !cuda.devices.empty())
                    sms = cuda.devices.front().multiprocessors;
            const std::size_t n = nbody::probeLimit(k->backend, sms);
            it = m_timings.emplace(s.kernel, nbody::EvaluationTiming{n, nbody::timeForceEvaluation(*k, n, {}, 42, {}, nullptr, 0.15)}).first;
        } catch (const std::exception&) {
            return s; // no prediction: the row's default
        }
    }
    s.timing = it->second;
    if (row.fixedBodies)
        return s;
    const nbody::EvaluationTiming timing = it->second;
    s.bodies = nbody::bodiesForStepRate(stepsPerSecond, s.evaluationsPerStep, 1024, 65536, timing.bodies,
                                        [timing](std::size_t) { return timing.ms; })
                   .bodies;
    return s;
}

QString ScenarioMenus::predictionText(const Suggestion& s, std::size_t n)
{
    if (!s.timing)
        return QString();
    const double seconds = nbody::predictedStepSeconds(*s.timing, n, s.evaluationsPerStep);
    return tr("%1 ms per step on %2 (about %3 steps/s), predicted from force evaluations timed at N = %L4")
        .arg(1e3 * seconds, 0, 'g', 3)
        .arg(s.kernel)
        .arg(seconds > 0 ? 1.0 / seconds : 0.0, 0, 'g', 3)
        .arg(qulonglong(s.timing->bodies));
}

void ScenarioMenus::openFile()
{
    const QString path = QFileDialog::getOpenFileName(m_parent, tr("Open scenario"),
                                                      m_lastPath.isEmpty() ? QString() : QFileInfo(m_lastPath).absolutePath(),
                                                      kFilter);
    if (path.isEmpty())
        return;
    m_lastPath = path;
    emit openScenarioRequested(path);
}

void ScenarioMenus::saveFile()
{
    QString path = QFileDialog::getSaveFileName(m_parent, tr("Save scenario"),
                                                m_lastPath.isEmpty() ? QStringLiteral("scenario.json") : m_lastPath,
                                                kFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    m_lastPath = path;
    emit saveScenarioRequested(path);
}

} // namespace nbody::app
