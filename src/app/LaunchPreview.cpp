#include "LaunchPreview.h"

#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include <cmath>

namespace nbody::app {

LaunchPreview::LaunchPreview(QObject* parent) : QObject(parent) {}

LaunchPreview::~LaunchPreview()
{
    stop(); // running predictions see the flag at their next step; their watchers are children
}

void LaunchPreview::setContext(std::shared_ptr<const LaunchContext> context)
{
    m_context = std::move(context);
    if (m_context && m_pending) {
        const auto [start, drag] = *m_pending;
        m_pending.reset();
        predict(start, drag);
    }
}

void LaunchPreview::stop()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    m_context.reset();
    m_pending.reset();
    ++m_generation; // a result still on its way is dropped
}

QString LaunchPreview::readout(const LaunchPrediction& p, double mass, bool truncatedShown, const QString& massText)
{
    const auto num = [](double v) { return QLocale::c().toString(v, 'g', 3); };
    QString s = tr("mass %1 · speed %2 · periapsis %3 %4 (t = %5)")
                    .arg(massText.isEmpty() ? num(mass) : massText, num(p.speed), num(p.periapsis),
                         p.aroundDominant ? tr("from the heaviest body") : tr("from the centre of mass"),
                         num(p.periapsisTime));
    // Which physics the path is: with the body's own pull (every body moving), or a test particle.
    if (!p.testParticle)
        s += tr(" · with its own pull");
    else if (mass > 0)
        s += tr(" · as a test particle (its own pull left out)");
    else
        s += tr(" · test particle");
    if (truncatedShown && p.truncated)
        s += tr(" · path cut at t = %1 (step cap)").arg(num(p.timeCovered));
    return s;
}

void LaunchPreview::predict(const Double3& start, const Double3& drag)
{
    if (!m_context) {
        m_pending = std::make_pair(start, drag);
        return;
    }
    if (m_cancel)
        m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const quint64 generation = ++m_generation;
    const double k = m_context->speedPerDragLength;
    LaunchRequest q;
    q.position = start;
    q.velocity = {drag.x * k, drag.y * k, drag.z * k};
    q.dt = m_context->dt; // signed: a reversed run's path is predicted backwards, as it will run
    q.duration =
        std::isfinite(m_context->dynamicalTime) ? m_times * m_context->dynamicalTime : 1000 * std::abs(q.dt);
    // O(N) per step: about 2·10⁸ pair terms (a few tenths of a second on one core) at most.
    const double pairs = launchPairsPerStep(m_context->field, m_mass);
    q.maxSteps = std::size_t(std::clamp(2e8 / pairs, 200.0, 200000.0));
    q.maxPathPoints = 2000;
    q.mass = m_mass;
    auto* watcher = new QFutureWatcher<LaunchPrediction>(this);
    connect(watcher, &QFutureWatcher<LaunchPrediction>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation || !m_context)
            return;
        try {
            const LaunchPrediction p = watcher->result();
            if (!p.cancelled)
                emit predicted(p.path, readout(p, m_mass, true, m_massText));
        } catch (const std::exception& e) {
            emit predicted({}, tr("no prediction: %1").arg(QString::fromUtf8(e.what())));
        }
    });
    watcher->setFuture(QtConcurrent::run(
        [context = m_context, q, cancel = m_cancel] { return predictLaunch(context->field, q, cancel.get()); }));
}

} // namespace nbody::app
