#include "ScenarioMenus.h"
#include "BodyCount.h"

#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QWidget>

#include <map>

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
    // The kernel the system will start on, and above the N where a tree row is faster, the tree
    // rows with their own predictions.
    auto* kernel = new QComboBox(&dialog);
    kernel->setObjectName(QStringLiteral("kernel"));
    kernel->setToolTip(tr("The kernel the new system starts on: the scenario's own, else the fastest here; a "
                          "tree row is offered where it is predicted faster at this N"));
    form->addRow(tr("Kernel:"), kernel);
    auto* prediction = new QLabel(&dialog);
    prediction->setObjectName(QStringLiteral("prediction"));
    prediction->setWordWrap(true);
    form->addRow(tr("Time per step:"), prediction);
    const int evaluations = suggestion.evaluationsPerStep;
    const QString startKernel = suggestion.kernel;
    const auto update = [this, kernel, prediction, bodies, evaluations, startKernel] {
        const std::size_t n = std::size_t(std::max(bodies->value(), 1));
        const QString chosen = kernel->currentData().toString();
        const std::optional<StepPrediction> own = predict(startKernel, n, evaluations);
        std::vector<StepPrediction> trees;
        if (own)
            trees = m_predictor.fasterTrees(*own);
        const QSignalBlocker block(kernel);
        kernel->clear();
        kernel->addItem(own ? tr("%1 (%2 per step)").arg(startKernel, QString::fromStdString(formatStepTime(own->secondsPerStep)))
                            : startKernel,
                        startKernel);
        for (const StepPrediction& t : trees)
            kernel->addItem(tr("%1 (%2 per step, faster at this N)")
                                .arg(QString::fromStdString(t.kernel), QString::fromStdString(formatStepTime(t.secondsPerStep))),
                            QString::fromStdString(t.kernel));
        kernel->setCurrentIndex(std::max(0, kernel->findData(chosen)));
        const QString now = kernel->currentData().toString();
        prediction->setText(predictionText(now == startKernel ? own : predict(now, n, evaluations)));
    };
    update();
    connect(bodies, &QSpinBox::valueChanged, prediction, update);
    connect(kernel, &QComboBox::currentIndexChanged, prediction, update);
    auto* seed = new QSpinBox(&dialog);
    seed->setRange(0, 1 << 30);
    seed->setValue(42);
    seed->setEnabled(!row->fixedBodies);
    form->addRow(tr("Seed:"), seed);
    form->addRow(new QLabel(tr("dt %1, ε² %2, G %3; integrator %4; steps per frame 1, run until paused")
                                .arg(double(row->dt))
                                .arg(double(row->eps2))
                                .arg(row->G)
                                .arg(qstr(row->integrator)),
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
    const qulonglong n = row->fixedBodies ? 0 : qulonglong(bodies->value());
    QString chosen = kernel->currentData().toString();
    if (!confirmLargeSystem(row->fixedBodies ? row->defaultBodies : n, evaluations, chosen))
        return;
    emit newScenarioRequested(id, n, quint64(seed->value()), chosen);
}

bool ScenarioMenus::confirmLargeSystem(qulonglong n, int evaluationsPerStep, QString& kernel)
{
    // A step in progress cannot be interrupted (Pause and Quit wait for it): ask before one that
    // is predicted to take more than ten seconds, with the same prediction the dialog showed.
    const std::optional<StepPrediction> p = predict(kernel, std::size_t(n), evaluationsPerStep);
    if (!p || p->secondsPerStep <= kSlowStepSeconds)
        return true;
    QMessageBox box(QMessageBox::Question, tr("A very slow step"),
                    tr("%1: %2. A step in progress cannot be interrupted: Pause and Quit wait for it. "
                       "Create it anyway?")
                        .arg(bodyCountGrouped(qulonglong(n)))
                        .arg(predictionText(p)),
                    QMessageBox::Yes | QMessageBox::No, m_parent);
    box.setObjectName(QStringLiteral("slowStepQuestion"));
    box.setDefaultButton(QMessageBox::No);
    std::map<QAbstractButton*, QString> trees;
    QStringList faster;
    for (const StepPrediction& t : m_predictor.fasterTrees(*p)) {
        const QString id = QString::fromStdString(t.kernel);
        trees[box.addButton(tr("Use %1").arg(id), QMessageBox::AcceptRole)] = id;
        faster << predictionText(t);
    }
    if (!faster.isEmpty())
        box.setInformativeText(tr("Faster at this N: %1.").arg(faster.join(QStringLiteral("; "))));
    box.exec();
    if (const auto it = trees.find(box.clickedButton()); it != trees.end()) {
        kernel = it->second;
        return true;
    }
    return box.clickedButton() == box.button(QMessageBox::Yes);
}

ScenarioMenus::Suggestion ScenarioMenus::suggest(const nbody::ScenarioInfo& row, double stepsPerSecond)
{
    Suggestion s;
    s.bodies = row.defaultBodies;
    s.kernel = QString::fromStdString(nbody::startKernel(row.kernel));
    if (const IntegratorInfo* integrator = findIntegrator(row.integrator))
        s.evaluationsPerStep = int(integrator->weights.size());
    const nbody::KernelInfo* k = nbody::findKernel(s.kernel.toStdString());
    if (!k)
        return s;
    try {
        if (row.fixedBodies) {
            s.prediction = m_predictor.predict(*k, s.bodies, s.evaluationsPerStep);
        } else {
            s.prediction = m_predictor.sizeForStepRate(*k, s.evaluationsPerStep, stepsPerSecond);
            s.bodies = s.prediction->bodies;
        }
    } catch (const std::exception&) {
        // no prediction: the row's default N
    }
    return s;
}

std::optional<StepPrediction> ScenarioMenus::predict(const QString& kernel, std::size_t n, int evaluationsPerStep)
{
    const nbody::KernelInfo* k = nbody::findKernel(kernel.toStdString());
    if (!k || !nbody::availability(*k).available)
        return std::nullopt;
    try {
        return m_predictor.predict(*k, n, evaluationsPerStep);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

QString ScenarioMenus::predictionText(const std::optional<StepPrediction>& p)
{
    return p ? QString::fromStdString(describeStepPrediction(*p)) : QString();
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
