#include "EditPresenter.h"

#include "FieldRange.h"
#include "LaunchPreview.h"
#include "Notices.h"
#include "RunDock.h"
#include "SimulationController.h"
#include "Viewport.h"

#include "sim/base/ShortestText.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/PrecisionRange.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QMainWindow>
#include <QToolBar>
#include <QUndoCommand>
#include <QUndoStack>

#include <cmath>
#include <limits>
#include <optional>

namespace nbody::app {

namespace {

// The Solar System's units (AU, M☉): IAU 2015 nominal values.
constexpr double kEarthMassInSolar = 1.0 / 332946.0487;   // M⊕ / M☉
constexpr double kJupiterMassInSolar = 1.0 / 1047.348644; // M♃ / M☉
constexpr double kKmInAu = 1.0 / 149597870.7;
constexpr double kEarthRadiusKm = 6371.0;

/// One applied edit on the Edit menu's undo stack. The controller applied it already (and keeps
/// the records): the first redo(), QUndoStack::push's, does nothing; later ones ask the
/// controller to redo it, undo() to undo it (in order: both go through its command queue).
class EditCommand : public QUndoCommand {
public:
    EditCommand(EditPresenter* presenter, const QString& text) : m_presenter(presenter) { setText(text); }
    void undo() override { emit m_presenter->undoRequested(); }
    void redo() override
    {
        if (m_pushed)
            emit m_presenter->redoRequested();
        m_pushed = true;
    }

private:
    EditPresenter* m_presenter;
    bool m_pushed = false;
};

/// The number in `box`: as typed when the field takes it (a value typed and not yet confirmed
/// with Enter counts, as the click in the view that adds the body may leave the field its
/// keyboard), else the value in use (FieldRange refused the text, or none was typed).
double fieldNumber(const QDoubleSpinBox* box)
{
    if (box->cleanText() == box->textFromValue(box->value()) || !FieldRange::problem(box, box->text()).isEmpty())
        return box->value(); // the value's own text (shown to 7 digits), or a refused one
    bool ok = false;
    const double v = QLocale::c().toDouble(box->text().trimmed(), &ok);
    return ok ? v : box->value();
}

QString numberText(double v)
{
    return QString::fromStdString(shortestText(float(v)));
}

} // namespace

EditPresenter::EditPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock,
                             SimulationController* controller, Notices& notices)
    : QObject(window), m_viewport(viewport), m_runDock(runDock), m_notices(notices)
{
    m_launchPreview = new LaunchPreview(window);
    createActions(window);
    createOptions(window);
    connectEdits(controller);
    connectLaunchPreview(controller);
}

void EditPresenter::createActions(QMainWindow* window)
{
    m_toolGroup = new QActionGroup(window);
    m_toolGroup->setExclusive(true);
    const struct {
        Viewport::Tool tool;
        QString text, tip;
        QKeySequence key;
    } tools[] = {
        {Viewport::Tool::Navigate, tr("&Navigate"),
         tr("Left-drag orbits, right-drag pans, the wheel zooms; a click selects a body"),
         QKeySequence(Qt::Key_1)},
        {Viewport::Tool::AddBody, tr("Add &body"),
         tr("Click to add a body there (its mass and radius: the tool's options); drag to give it a velocity: the "
            "predicted path shows while dragging; the tool then returns to Navigate; hold Shift at the release to "
            "add more"),
         QKeySequence(Qt::Key_2)},
        {Viewport::Tool::AddCluster, tr("Add &cluster"),
         tr("Click to add a small Plummer cluster (64 bodies) there; drag to give it a velocity; the tool then "
            "returns to Navigate; hold Shift at the release to add more"),
         QKeySequence(Qt::Key_3)},
        {Viewport::Tool::Delete, tr("&Delete region"), tr("Drag a rectangle: the bodies inside are removed"),
         QKeySequence(Qt::Key_4)},
    };
    for (const auto& t : tools) {
        auto* a = new QAction(t.text, m_toolGroup);
        a->setCheckable(true);
        a->setShortcut(t.key);
        a->setStatusTip(t.tip);
        a->setToolTip(t.tip);
        a->setChecked(t.tool == Viewport::Tool::Navigate);
        a->setData(int(t.tool));
        const Viewport::Tool tool = t.tool;
        connect(a, &QAction::triggered, this, [this, tool] { m_viewport->setTool(tool); });
    }
    // The viewport may change the tool itself (Navigate again after a launch): the checked
    // action follows.
    connect(m_viewport, &Viewport::toolChanged, this, [this](Viewport::Tool tool) {
        for (QAction* a : m_toolGroup->actions())
            if (a->data().toInt() == int(tool))
                a->setChecked(true);
        if (!m_optionsBar)
            return;
        if (tool == Viewport::Tool::AddBody && !m_optionsBarPlaced) {
            // Placed the first time it shows, when the main toolbar is there: a row of its own
            // below it, so the main toolbar keeps its room.
            if (auto* mainWindow = qobject_cast<QMainWindow*>(m_optionsBar->parent())) {
                mainWindow->addToolBarBreak(Qt::TopToolBarArea);
                mainWindow->addToolBar(Qt::TopToolBarArea, m_optionsBar);
            }
            m_optionsBarPlaced = true;
        }
        m_optionsBar->setVisible(tool == Viewport::Tool::AddBody);
    });

    m_undoStack = new QUndoStack(this);
    m_undoStack->setUndoLimit(int(SimulationController::kMaxUndoEdits)); // as the controller keeps them
    m_undoAction = new QAction(tr("&Undo"), window);
    m_undoAction->setObjectName(QStringLiteral("undoEditAction"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setEnabled(false);
    m_undoAction->setStatusTip(tr("Undo the last add or delete (the simulation keeps running)"));
    connect(m_undoAction, &QAction::triggered, m_undoStack, &QUndoStack::undo);
    m_redoAction = new QAction(tr("&Redo"), window);
    m_redoAction->setObjectName(QStringLiteral("redoEditAction"));
    m_redoAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    m_redoAction->setEnabled(false);
    m_redoAction->setStatusTip(tr("Redo the last undone add or delete"));
    connect(m_redoAction, &QAction::triggered, m_undoStack, &QUndoStack::redo);
    connect(m_undoStack, &QUndoStack::canUndoChanged, m_undoAction, &QAction::setEnabled);
    connect(m_undoStack, &QUndoStack::canRedoChanged, m_redoAction, &QAction::setEnabled);
    connect(m_undoStack, &QUndoStack::undoTextChanged, this, [this](const QString& text) {
        const QString tip = text.isEmpty() ? tr("Undo the last add or delete") : tr("Undo: %1").arg(text);
        m_undoAction->setToolTip(tip);
        m_undoAction->setStatusTip(tip);
    });
    connect(m_undoStack, &QUndoStack::redoTextChanged, this, [this](const QString& text) {
        const QString tip = text.isEmpty() ? tr("Redo the last undone add or delete") : tr("Redo: %1").arg(text);
        m_redoAction->setToolTip(tip);
        m_redoAction->setStatusTip(tip);
    });
}

void EditPresenter::createOptions(QMainWindow* window)
{
    m_optionsBar = new QToolBar(tr("Add body options"), window);
    m_optionsBar->setObjectName(QStringLiteral("addBodyOptions"));
    auto* massLabel = new QLabel(tr("New body: mass "), m_optionsBar);
    m_optionsBar->addWidget(massLabel);
    // Number fields that FieldRange guards: a value outside the allowed ones (updateRanges) is
    // refused in the field, and the one before stays in use.
    m_mass = new ScientificSpinBox(m_optionsBar);
    m_mass->setObjectName(QStringLiteral("addBodyMass"));
    m_mass->setMaximumWidth(110);
    m_mass->setToolTip(tr("The new body's mass (0: a test particle, which attracts nothing)"));
    massLabel->setBuddy(m_mass); // names the field in its messages
    m_optionsBar->addWidget(m_mass);
    m_massUnit = new QComboBox(m_optionsBar);
    m_massUnit->setObjectName(QStringLiteral("addBodyMassUnit"));
    m_optionsBar->addWidget(m_massUnit);
    auto* radiusLabel = new QLabel(tr("  radius "), m_optionsBar);
    m_optionsBar->addWidget(radiusLabel);
    m_radius = new ScientificSpinBox(m_optionsBar);
    m_radius->setObjectName(QStringLiteral("addBodyRadius"));
    m_radius->setMaximumWidth(110);
    m_radius->setToolTip(tr("The new body's radius (0: a point mass); with collisions on, bodies that touch merge"));
    radiusLabel->setBuddy(m_radius);
    m_optionsBar->addWidget(m_radius);
    m_radiusUnit = new QComboBox(m_optionsBar);
    m_radiusUnit->setObjectName(QStringLiteral("addBodyRadiusUnit"));
    m_optionsBar->addWidget(m_radiusUnit);
    connect(m_massUnit, &QComboBox::currentIndexChanged, this, &EditPresenter::updateRanges);
    connect(m_radiusUnit, &QComboBox::currentIndexChanged, this, &EditPresenter::updateRanges);
    m_largestMass = nbody::largestBodyMass(m_params, nbody::Precision::Fp32);
    m_optionsBar->hide(); // shown while Add body is the tool, in a row of its own below the toolbar
    setDefaults(1.0);
}

void EditPresenter::setDefaults(double medianMass)
{
    const QSignalBlocker b1(m_massUnit), b2(m_radiusUnit);
    m_massUnit->clear();
    m_radiusUnit->clear();
    if (m_solarUnits) {
        m_massUnit->addItem(tr("Earth masses"), kEarthMassInSolar);
        m_massUnit->addItem(tr("Jupiter masses"), kJupiterMassInSolar);
        m_massUnit->addItem(tr("solar masses"), 1.0);
        m_radiusUnit->addItem(tr("km"), kKmInAu);
        m_radiusUnit->addItem(tr("AU"), 1.0);
        m_defaultMass = kEarthMassInSolar;
        m_defaultRadius = kEarthRadiusKm * kKmInAu;
        updateRanges();
        m_mass->setValue(1.0);
        m_radius->setValue(kEarthRadiusKm);
    } else {
        m_massUnit->addItem(tr("mass units"), 1.0);
        m_radiusUnit->addItem(tr("length units"), 1.0);
        m_defaultMass = medianMass > 0 && std::isfinite(medianMass) ? medianMass : 0.0;
        m_defaultRadius = 0.0;
        updateRanges();
        m_mass->setValue(numberText(m_defaultMass).toDouble()); // the median's shortest text ("0.000999001")
        m_radius->setValue(0.0);
    }
    m_massUnit->setToolTip(m_solarUnits ? tr("The system is in AU, days and solar masses") : tr("The system's units"));
}

void EditPresenter::updateRanges()
{
    // The limits in the units chosen: the field shows them, and refuses values beyond them.
    const double massUnit = m_massUnit->count() ? m_massUnit->currentData().toDouble() : 1.0;
    const double lengthUnit = m_radiusUnit->count() ? m_radiusUnit->currentData().toDouble() : 1.0;
    m_mass->setRange(0.0, m_largestMass / massUnit);
    m_radius->setRange(0.0, double(std::numeric_limits<float>::max()) / lengthUnit);
}

double EditPresenter::bodyMass() const
{
    return fieldNumber(m_mass) * m_massUnit->currentData().toDouble();
}

double EditPresenter::bodyRadius() const
{
    return fieldNumber(m_radius) * m_radiusUnit->currentData().toDouble();
}

QList<QAction*> EditPresenter::toolActions() const
{
    return m_toolGroup->actions();
}

void EditPresenter::connectEdits(SimulationController* c)
{
    connect(this, &EditPresenter::undoRequested, c, &SimulationController::undoLastEdit);
    connect(this, &EditPresenter::redoRequested, c, &SimulationController::redoLastEdit);
    // Queued to the worker thread through functors (no metatypes needed for the arguments).
    connect(m_viewport, &Viewport::addRequested, this,
            [this, c](double x, double y, double z, double dx, double dy, double dz, bool cluster) {
                if (cluster) {
                    QMetaObject::invokeMethod(c, [=] { c->addAt(x, y, z, dx, dy, dz, true); }, Qt::QueuedConnection);
                    return;
                }
                const double mass = bodyMass(), radius = bodyRadius();
                QMetaObject::invokeMethod(c, [=] { c->addBodyAt(x, y, z, dx, dy, dz, mass, radius); },
                                          Qt::QueuedConnection);
            });
    connect(m_viewport, &Viewport::removeRequested, this,
            [c](const std::array<float, 16>& vp, float x0, float y0, float x1, float y1) {
                QMetaObject::invokeMethod(c, [=] { c->removeInRegion(vp, x0, y0, x1, y1); }, Qt::QueuedConnection);
            });
    connect(c, &SimulationController::editApplied, this,
            [this](const QString& what, bool) { m_notices.status(what, 5000); });
    connect(c, &SimulationController::editRecorded, this,
            [this](const QString& what) { m_undoStack->push(new EditCommand(this, what)); });
    connect(c, &SimulationController::editHistoryCleared, m_undoStack, &QUndoStack::clear);
    connect(c, &SimulationController::unitsChanged, this, [this](const QString& unitsOfG) {
        m_solarUnits = unitsOfG.contains(QStringLiteral("AU")) && unitsOfG.contains(QChar(0x2609)); // M☉
    });
    connect(c, &SimulationController::massesChanged, this, [this](double median, double) { setDefaults(median); });
    // The largest mass follows G, ε² and the kernel's precision (nbody::largestBodyMass).
    const auto largest = [this] {
        m_largestMass = nbody::largestBodyMass(m_params, m_fp64 ? nbody::Precision::Fp64 : nbody::Precision::Fp32);
        updateRanges();
    };
    connect(c, &SimulationController::paramsChanged, this, [this, largest](const nbody::SimParams& p) {
        m_params = p;
        largest();
    });
    connect(c, &SimulationController::kernelChanged, this, [this, largest](const QString& id) {
        const nbody::KernelInfo* k = nbody::findKernel(id.toStdString());
        m_fp64 = k && k->precision == nbody::Precision::Fp64;
        largest();
    });
}

void EditPresenter::connectLaunchPreview(SimulationController* c)
{
    connect(this, &EditPresenter::launchFieldRequested, this, [c](quint64 serial, qulonglong maxSources) {
        QMetaObject::invokeMethod(c, [=] { c->requestLaunchField(serial, maxSources); }, Qt::QueuedConnection);
    });
    // The field at the press, the prediction on a worker thread as the drag moves.
    connect(m_viewport, &Viewport::launchDragStarted, this, [this] {
        m_launchPreview->stop();
        m_launchPreview->setDurationTimes(m_runDock->launchPreviewTimes());
        // The readout's mass as the options give it ("1 Earth masses"; in the system's units the number).
        const QString unit = m_massUnit->currentData().toDouble() == 1.0 && !m_solarUnits ? QString()
                                                                                          : m_massUnit->currentText();
        m_launchPreview->setMass(bodyMass(), !unit.isEmpty() ? QStringLiteral("%1 %2").arg(
                                                                   QLocale::c().toString(fieldNumber(m_mass), 'g', 3), unit)
                                                             : QString());
        emit launchFieldRequested(++m_launchSerial, 16384);
    });
    connect(c, &SimulationController::launchFieldReady, this,
            [this](std::shared_ptr<const nbody::app::LaunchContext> context) {
                if (context && context->serial == m_launchSerial)
                    m_launchPreview->setContext(std::move(context));
            });
    connect(m_viewport, &Viewport::launchDragMoved, this,
            [this](double x, double y, double z, double dx, double dy, double dz) {
                m_launchPreview->predict({x, y, z}, {dx, dy, dz});
            });
    connect(m_viewport, &Viewport::launchDragEnded, this, [this] {
        ++m_launchSerial; // a field still on its way belongs to the ended drag
        m_launchPreview->stop();
        m_viewport->setLaunchPath({}, QString());
    });
    connect(m_launchPreview, &LaunchPreview::predicted, m_viewport, &Viewport::setLaunchPath);
}

} // namespace nbody::app
