#pragma once
/// \file StepTimeAverage.h
/// The status bar's time per step: the milliseconds the frames spent in Simulation::step()
/// (wall clock, device synchronised: FrameResult::timing), weighted by their steps, over the
/// current and the previous second. It is the cost of stepping alone, whatever the frame rate:
/// at one step per frame a 0.02 ms step still shows 0.02 ms, not the 16 ms between frames.
/// The frame rate is counted apart (frames drawn per second). Plain value type, no Qt.

#include <cstdint>

namespace nbody::app {

class StepTimeAverage {
public:
    /// A frame that took `steps` steps at `msPerStep` each (ignored when steps <= 0).
    void add(int steps, double msPerStep)
    {
        if (steps <= 0 || !(msPerStep >= 0))
            return;
        m_current.steps += std::uint64_t(steps);
        m_current.ms += msPerStep * steps;
    }
    /// Once a second: the current second becomes the previous one (the average then spans
    /// 1 to 2 s, so it neither jumps at the tick nor lags behind a change by more than 2 s).
    void roll()
    {
        m_previous = m_current;
        m_current = {};
    }
    /// A new system, kernel or N: earlier figures do not describe the steps to come.
    void clear() { m_previous = m_current = {}; }

    std::uint64_t steps() const { return m_previous.steps + m_current.steps; }
    /// Mean milliseconds per step over the window; 0 when no step was taken in it.
    double msPerStep() const
    {
        const std::uint64_t n = steps();
        return n > 0 ? (m_previous.ms + m_current.ms) / double(n) : 0.0;
    }

private:
    struct Sums {
        std::uint64_t steps = 0;
        double ms = 0.0;
    };
    Sums m_previous, m_current;
};

/// Totals of a scripted run (nbody-sandbox --steps K --quit), printed at exit: every step after
/// the first frame that stepped (that frame also pays for the first force evaluation, device
/// allocation and upload, as `nbody bench` leaves its warm-up out).
struct StepTimeTotals {
    std::uint64_t warmupSteps = 0; ///< steps of the first stepping frame (not in the mean)
    double warmupMs = 0.0;         ///< their milliseconds
    std::uint64_t steps = 0;       ///< steps after it
    double ms = 0.0;               ///< their milliseconds in Simulation::step()

    void add(int frameSteps, double msPerStep)
    {
        if (frameSteps <= 0 || !(msPerStep >= 0))
            return;
        if (warmupSteps == 0) {
            warmupSteps = std::uint64_t(frameSteps);
            warmupMs = msPerStep * frameSteps;
            return;
        }
        steps += std::uint64_t(frameSteps);
        ms += msPerStep * frameSteps;
    }
    /// The mean after the first frame; the first frame's own when it was the only one; 0: none.
    double msPerStep() const
    {
        if (steps > 0)
            return ms / double(steps);
        return warmupSteps > 0 ? warmupMs / double(warmupSteps) : 0.0;
    }
};

} // namespace nbody::app
