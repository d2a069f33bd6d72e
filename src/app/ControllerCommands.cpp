/// \file ControllerCommands.cpp
/// SimulationController (its commands on the running system): the kernel and the parameters,
/// the tuner, the sandbox's edits, the selection and the Add body tool's field.

#include "SimulationController.h"
#include "BodyCount.h"

#include "sim/core/Edits.h"
#include "sim/base/Format.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/perf/LaunchPredictor.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Scenario.h"
#include "sim/core/Selection.h"
#include "sim/core/Simulation.h"
#include "sim/perf/Tuner.h"
#include "contracts/World.h"

#include <QStringList>

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
        const SimParams before = m_sim->params();
        SimParams p = before;
        edit(p);
        const std::uint64_t resets = m_sim->energyReferenceResets();
        m_sim->setParams(p); // throws invalid_argument naming the limit; nothing changes then
        // Named by the rows that changed, in the app's words: "ε² 0.0025 → 0.000625" (as the
        // Simulation took them: a force accuracy changes θ too).
        const SimParams& after = m_sim->params();
        QStringList changes;
        for (const ParamInfo* row : changedParams(before, after)) {
            const std::string_view name = row->symbol.empty() ? row->label : row->symbol;
            changes << QStringLiteral("%1 %2 → %3")
                           .arg(QString::fromUtf8(name.data(), qsizetype(name.size())),
                                QString::fromStdString(row->get(before)), QString::fromStdString(row->get(after)));
        }
        reportRebase(resets, changes.join(QStringLiteral(", ")));
    };
    enqueue(std::move(c));
}

void SimulationController::reportRebase(std::uint64_t resetsBefore, const QString& name)
{
    if (m_sim->energyReferenceResets() != resetsBefore && m_sampled)
        emit energyReferenceRebased(m_sim->time(), name);
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

void SimulationController::applyEdit(const std::function<EditRecord(World&)>& edit, EditStep step)
{
    World world = m_sim->world(); // synchronised: the current state, time and step
    EditRecord record = edit(world);
    if (world.empty())
        throw std::invalid_argument("the edit would leave no bodies; nothing was changed");
    const auto range = world.massRange();
    const std::size_t before = m_sim->size(), after = world.size();
    const std::uint64_t resets = m_sim->energyReferenceResets();
    followSelectionMerges(); // setWorld starts a new merge log: follow the old one to its end first
    m_sim->setWorld(std::move(world)); // keeps time and step; throws invalid_argument: nothing changes
    // The masses changed, so E₀ is taken again (setWorld): named by what happened to the bodies.
    reportRebase(resets, after > before       ? (after - before == 1 ? tr("body added")
                                                                      : tr("%1 added").arg(bodyCountText(after - before)))
                         : after < before     ? (before - after == 1 ? tr("body removed")
                                                                      : tr("%1 removed").arg(bodyCountText(before - after)))
                                              : QString::fromStdString(record.description));
    m_mergesFollowed = 0;
    m_massRange = range;
    m_edited = true; // Save scenario stores these bodies, not the recipe's
    m_rangeCheckDue = true;
    const std::string description = record.description;
    switch (step) {
    case EditStep::New:
        m_undoEdits.push_back(std::move(record));
        m_redoEdits.clear();
        if (m_undoEdits.size() > kMaxUndoEdits)
            m_undoEdits.erase(m_undoEdits.begin());
        break;
    case EditStep::Undo: // `record` redoes what was undone
        m_undoEdits.pop_back();
        m_redoEdits.push_back(std::move(record));
        break;
    case EditStep::Redo: // `record` undoes it again
        m_redoEdits.pop_back();
        m_undoEdits.push_back(std::move(record));
        break;
    }
    const QString text = QString::fromStdString(description);
    if (step == EditStep::New)
        emit editRecorded(text);
    emit editApplied(step == EditStep::Undo   ? tr("undid: %1").arg(text)
                     : step == EditStep::Redo ? tr("redid: %1").arg(text)
                                              : text,
                     !m_undoEdits.empty());
}

void SimulationController::addAt(double x, double y, double z, double dragX, double dragY, double dragZ,
                                 bool cluster, int clusterBodies)
{
    addEdit(x, y, z, dragX, dragY, dragZ, cluster, clusterBodies, -1.0, 0.0);
}

void SimulationController::addBodyAt(double x, double y, double z, double dragX, double dragY, double dragZ,
                                     double mass, double radius)
{
    addEdit(x, y, z, dragX, dragY, dragZ, false, 1, mass, radius);
}

void SimulationController::addEdit(double x, double y, double z, double dragX, double dragY, double dragZ,
                                   bool cluster, int clusterBodies, double mass, double radius)
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
                    const double clusterMass = mc.mass / double(world.size()) * double(n);
                    bodies = makePlummerCluster(n, clusterMass, 0.02 * f.radius, Double3{x, y, z}, v, G, m_editSeed++);
                    what = "added a Plummer cluster of " + bodyCount(n);
                } else {
                    // The Add body tool's mass and radius; a negative mass: the system's largest.
                    const float m = mass >= 0 ? float(mass) : world.massRange().second;
                    bodies.addBody(Float4{float(x), float(y), float(z), m},
                                   Float4{float(v.x), float(v.y), float(v.z), 0.f}, Group::Generic, World::kAutoId,
                                   float(std::max(0.0, radius)));
                    what = formatString("added a body of mass %.3g", double(m));
                }
                return addBodies(world, bodies, what);
            },
            EditStep::New);
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
                return removeBodies(world, inside, "removed " + bodyCount(inside.size()));
            },
            EditStep::New);
    };
    enqueue(std::move(c));
}

void SimulationController::undoLastEdit()
{
    revertLastEdit(EditStep::Undo);
}

void SimulationController::redoLastEdit()
{
    revertLastEdit(EditStep::Redo);
}

void SimulationController::revertLastEdit(EditStep step)
{
    const bool undo = step == EditStep::Undo;
    Command c;
    c.what = undo ? QStringLiteral("undo") : QStringLiteral("redo");
    // Room for bodies that come back (an undone removal, a redone add). The stacks are the
    // worker's; this reads them on the thread that owns the controller, as every slot does.
    const std::vector<EditRecord>& stack = undo ? m_undoEdits : m_redoEdits;
    if (!stack.empty() && m_sim && stack.back().kind == EditRecord::Kind::Removed)
        c.requiredCapacity = m_sim->size() + stack.back().removed.size();
    c.apply = [this, step, undo] {
        std::vector<EditRecord>& from = undo ? m_undoEdits : m_redoEdits;
        if (from.empty())
            throw std::invalid_argument(undo ? "there is no edit to undo" : "there is no edit to redo");
        applyEdit([this, undo](World& world) { return revertEdit(world, (undo ? m_undoEdits : m_redoEdits).back()); },
                  step);
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
        context->dynamicalTime = dynamicalTime(world, p.G);
        context->dt = signedTimeStep(p); // the prediction steps as the run will: backwards in reverse
        context->serial = serial;
        emit launchFieldReady(std::move(context));
    };
    enqueue(std::move(c));
}

} // namespace nbody::app
