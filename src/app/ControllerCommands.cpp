/// \file ControllerCommands.cpp
/// SimulationController (its commands on the running system): the kernel and the parameters,
/// the tuner, the sandbox's edits, the selection and the Add body tool's field.

#include "SimulationController.h"

#include "sim/core/Edits.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/perf/LaunchPredictor.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Scenario.h"
#include "sim/core/Selection.h"
#include "sim/core/Simulation.h"
#include "sim/perf/Tuner.h"
#include "contracts/World.h"

#include <algorithm>
#include <stdexcept>

namespace nbody::app {

void SimulationController::setKernel(const QString& id)
{
    Command c;
    c.what = QStringLiteral("kernel");
    c.apply = [this, id] {
        m_sim->setKernel(id.toStdString());
        m_scenarioKernel.clear(); // the user's choice from now on
    };
    enqueue(std::move(c));
}

void SimulationController::setIntegrator(const QString& id)
{
    changeParams(QStringLiteral("integrator"), [id](SimParams& p) { p.integrator = id.toStdString(); });
}

void SimulationController::changeParams(const QString& what,
                                        const std::function<void(SimParams&)>& edit)
{
    Command c;
    c.what = what;
    c.apply = [this, edit] {
        SimParams p = m_sim->params();
        edit(p);
        m_sim->setParams(p); // throws invalid_argument naming the limit; nothing changes then
    };
    enqueue(std::move(c));
}

void SimulationController::setDt(double dt)
{
    changeParams(QStringLiteral("dt"), [dt](SimParams& p) { p.dt = static_cast<float>(dt); });
}

void SimulationController::setGravitationalConstant(double G)
{
    changeParams(QStringLiteral("G"), [G](SimParams& p) { p.G = G; });
}

void SimulationController::setCollisions(bool on)
{
    changeParams(QStringLiteral("collisions"), [on](SimParams& p) { p.collisions = on; });
}

void SimulationController::setEps2(double eps2)
{
    changeParams(QStringLiteral("eps2"), [eps2](SimParams& p) { p.eps2 = static_cast<float>(eps2); });
}

void SimulationController::setParam(const QString& key, const QString& text)
{
    const ParamInfo* row = findParam(key.toStdString());
    const QString what = row ? QString::fromUtf8(row->label.data(), qsizetype(row->label.size())) : key;
    changeParams(what, [row, key, text](SimParams& p) {
        if (!row)
            throw std::invalid_argument("unknown parameter '" + key.toStdString() + "'");
        if (const std::string why = row->set(text.toStdString(), p); !why.empty())
            throw std::invalid_argument(why);
    });
}

void SimulationController::setReverse(bool reverse)
{
    changeParams(QStringLiteral("reverse"), [reverse](SimParams& p) { p.reverse = reverse; });
}

void SimulationController::setDiagnosticsInterval(int steps)
{
    changeParams(QStringLiteral("diagnostics interval"),
                 [steps](SimParams& p) { p.diagnosticsInterval = steps; });
}

void SimulationController::tuneNow()
{
    Command c;
    c.what = QStringLiteral("tuning");
    c.apply = [this] { tuneIfNeeded(true); };
    enqueue(std::move(c));
}

void SimulationController::tuneIfNeeded(bool force)
{
    if (!m_sim)
        return;
    const KernelInfo& k = m_sim->kernel();
    if (!tunable(k, force ? SimParams{} : m_sim->params()))
        return;
    const TuningDevice device = currentTuningDevice();
    const std::size_t bucket = tuningBucket(m_sim->size());
    const std::pair<std::string, std::size_t> key{std::string(k.id), bucket};
    if (!force) {
        // Once per kernel and bucket per session (a failed search is not retried every frame),
        // and only when the cache lacks the entry.
        if (device.name.empty() || std::find(m_tuneAttempted.begin(), m_tuneAttempted.end(), key) != m_tuneAttempted.end() ||
            tuningCache().find(device, k.id, bucket))
            return;
    }
    m_tuneAttempted.push_back(key);
    const QString id = QString::fromStdString(key.first);
    emit tuningStarted(tr("Tuning %1 for N≈%2 on %3 (once per device)…")
                           .arg(id).arg(bucket).arg(QString::fromStdString(device.name)));
    try {
        const TuneOutcome t = ensureTuned(k, m_sim->params(), m_sim->size(), {}, force);
        QString text = t.entry ? tr("Tuned %1 for N≈%2: %3")
                                     .arg(id)
                                     .arg(bucket)
                                     .arg(QString::fromStdString(describeTuned(k, *t.entry)))
                               : tr("%1 needs no tuning").arg(id);
        if (!t.warning.empty())
            text += QStringLiteral(" (%1)").arg(QString::fromStdString(t.warning));
        emit tuningFinished(text);
    } catch (const CudaError&) {
        emit tuningFinished(QString());
        throw; // the frame pauses at the last host copy (its GPU fault handling)
    } catch (const std::exception& e) {
        emit tuningFinished(QString());
        emit commandFailed(QStringLiteral("tuning"), QString::fromUtf8(e.what()));
    }
}

void SimulationController::applyEdit(const std::function<EditRecord(World&)>& edit, bool isUndo)
{
    World world = m_sim->world(); // synchronised: the current state, time and step
    EditRecord record = edit(world);
    if (world.empty())
        throw std::invalid_argument("the edit would leave no bodies; nothing was changed");
    const auto range = world.massRange();
    followSelectionMerges(); // setWorld starts a new merge log: follow the old one to its end first
    m_sim->setWorld(std::move(world)); // keeps time and step; throws invalid_argument: nothing changes
    m_mergesFollowed = 0;
    m_massRange = range;
    if (isUndo)
        m_lastEdit.reset();
    else
        m_lastEdit = std::make_unique<EditRecord>(std::move(record));
    emit editApplied(QString::fromStdString(isUndo ? "undid: " + record.description
                                                   : m_lastEdit->description),
                     m_lastEdit != nullptr);
}

void SimulationController::addAt(double x, double y, double z, double dragX, double dragY, double dragZ,
                                 bool cluster, int clusterBodies)
{
    if (!m_sim)
        return;
    Command c;
    c.what = QStringLiteral("add");
    c.requiredCapacity = m_sim->size() + (cluster ? std::size_t(std::max(1, clusterBodies)) : 1);
    c.apply = [=, this] {
        applyEdit(
            [&](World& world) {
                const FramingSphere f = framingSphere(world);
                const MassCentre mc = centreOfMass(world);
                const double G = m_sim->params().G;
                const double speed = launchSpeedPerDragLength(world, G); // as the prediction (LaunchPredictor.h)
                const Double3 v{dragX * speed, dragY * speed, dragZ * speed};
                World bodies;
                std::string what;
                if (cluster) {
                    const std::size_t n = std::size_t(std::max(1, clusterBodies));
                    const double mass = mc.mass / double(world.size()) * double(n);
                    bodies = makePlummerCluster(n, mass, 0.02 * f.radius, Double3{x, y, z}, v, G, m_editSeed++);
                    what = "added a Plummer cluster of " + std::to_string(n) + " bodies";
                } else {
                    bodies.addBody(Float4{float(x), float(y), float(z), world.massRange().second},
                                   Float4{float(v.x), float(v.y), float(v.z), 0.f}, Group::Generic);
                    what = "added a body";
                }
                return addBodies(world, bodies, what);
            },
            false);
    };
    enqueue(std::move(c));
}

void SimulationController::removeInRegion(const std::array<float, 16>& viewProjection, float x0, float y0, float x1,
                                          float y1)
{
    Command c;
    c.what = QStringLiteral("delete");
    c.apply = [=, this] {
        applyEdit(
            [&](World& world) {
                const std::vector<BodyIndex> inside = bodiesInRegion(world, viewProjection.data(), x0, y0, x1, y1);
                return removeBodies(world, inside, "removed " + std::to_string(inside.size()) + " bodies");
            },
            false);
    };
    enqueue(std::move(c));
}

void SimulationController::undoLastEdit()
{
    Command c;
    c.what = QStringLiteral("undo");
    if (m_lastEdit && m_sim && m_lastEdit->kind == EditRecord::Kind::Removed)
        c.requiredCapacity = m_sim->size() + m_lastEdit->removed.size();
    c.apply = [this] {
        if (!m_lastEdit)
            throw std::invalid_argument("there is no edit to undo");
        applyEdit(
            [this](World& world) {
                undoEdit(world, *m_lastEdit);
                return *m_lastEdit;
            },
            true);
    };
    enqueue(std::move(c));
}

void SimulationController::selectAt(const std::array<float, 16>& viewProjection, double px, double py, int width,
                                    int height, double radiusPx)
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [=, this] {
        const World& world = m_sim->world();
        const std::optional<BodyIndex> i =
            pickBody(world.positions(), viewProjection.data(), px, py, width, height, radiusPx);
        if (i) {
            m_selectedId = world.ids()[*i];
            m_selectedIndex = *i;
            m_mergesFollowed = m_sim->mergeLog().size();
            m_selectionChanged = true;
        } else if (m_selectedId) {
            m_selectedId.reset();
            m_selectionCleared = true;
            m_selectionMessage.clear();
        }
    };
    enqueue(std::move(c));
}

void SimulationController::selectId(quint32 id)
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [=, this] {
        if (const std::optional<BodyIndex> i = findBodyById(m_sim->ids(), id)) {
            m_selectedId = id;
            m_selectedIndex = *i;
            m_mergesFollowed = m_sim->mergeLog().size();
            m_selectionChanged = true;
        }
    };
    enqueue(std::move(c));
}

void SimulationController::clearSelection()
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [this] {
        if (!m_selectedId)
            return;
        m_selectedId.reset();
        m_selectionCleared = true;
        m_selectionMessage.clear();
    };
    enqueue(std::move(c));
}

void SimulationController::requestLaunchField(quint64 serial, qulonglong maxSources)
{
    Command c;
    c.what = QStringLiteral("launch preview");
    c.apply = [=, this] {
        const World& world = m_sim->world();
        const SimParams& p = m_sim->params();
        auto context = std::make_shared<LaunchContext>();
        context->field = makeLaunchField(world, p.G, p.eps2, std::max<qulonglong>(1, maxSources));
        context->speedPerDragLength = launchSpeedPerDragLength(world, p.G);
        context->mass = world.massRange().second;
        context->dynamicalTime = dynamicalTime(world, p.G);
        context->dt = signedTimeStep(p); // the prediction steps as the run will: backwards in reverse
        context->serial = serial;
        emit launchFieldReady(std::move(context));
    };
    enqueue(std::move(c));
}

} // namespace nbody::app
