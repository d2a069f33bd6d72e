#pragma once
/// \file Progress.h
/// How a long job (a generator making N bodies, a reader) reports how far it got and learns that
/// it should stop: a report callback and a std::stop_token. The job calls check() every so often;
/// it throws Cancelled once a stop was requested, so the job unwinds and leaves nothing behind.

#include <functional>
#include <stdexcept>
#include <stop_token>

namespace nbody {

/// Thrown by Progress::check() when the caller asked the job to stop.
struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};

class Progress {
public:
    /// Receives the fraction done, 0 … 1 (on the job's thread).
    using Report = std::function<void(double fraction)>;
    /// No report and no stop: check() does nothing.
    Progress() = default;
    Progress(Report report, std::stop_token stop) : m_report(std::move(report)), m_stop(std::move(stop)) {}

    /// Throws Cancelled when a stop was requested, else reports `fraction` (0 … 1 of this
    /// part) as a fraction of the whole job.
    void check(double fraction) const
    {
        if (m_stop.stop_requested())
            throw Cancelled();
        if (m_report)
            m_report(m_from + (m_to - m_from) * fraction);
    }
    /// check() every 4096 items: `done` of `total`.
    void every(std::size_t done, std::size_t total) const
    {
        if ((done & 4095) == 0 && total > 0)
            check(double(done) / double(total));
    }
    /// The part of this job from `from` to `to` (fractions of it): a step of a longer job.
    Progress part(double from, double to) const
    {
        Progress p = *this;
        p.m_from = m_from + (m_to - m_from) * from;
        p.m_to = m_from + (m_to - m_from) * to;
        return p;
    }

private:
    Report m_report;
    std::stop_token m_stop;
    double m_from = 0, m_to = 1;
};

} // namespace nbody
