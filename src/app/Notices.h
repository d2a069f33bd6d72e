#pragma once
/// \file Notices.h
/// The window's messages to the user, shared by MainWindow and its presenters: the status bar's
/// transient line, one non-modal warning box at a time, and stderr in a scripted run.

#include <QPointer>
#include <QString>

class QMainWindow;
class QMessageBox;

namespace nbody::app {

/// Owns the warning box (a child of the window) and knows whether the run is scripted
/// (Automation::active()): there a warning goes to stderr, as "nbody-sandbox: …".
class Notices {
public:
    Notices(QMainWindow* window, bool scripted) : m_window(window), m_scripted(scripted) {}

    /// A run from the command line's --capture, --record or --quit: nobody reads dialogs.
    bool scripted() const { return m_scripted; }
    /// The status bar's transient message (0 ms: until replaced).
    void status(const QString& text, int timeoutMs = 0) const;
    void clearStatus() const;
    /// Non-modal, and one at a time: a burst of failures updates the box instead of stacking.
    /// `activate` false: the box shows without taking the keyboard, for a warning that comes by
    /// itself during a run (the energy check): the keys go on to the window, so P still pauses
    /// and a field being typed in keeps its keys.
    void warn(const QString& title, const QString& text, bool activate = true);
    /// "nbody-sandbox: text" on stderr.
    static void printError(const QString& text);
    /// printError(text) in a scripted run, else warn(title, text, activate).
    void report(const QString& title, const QString& text, bool activate = true);

private:
    QMainWindow* m_window;
    bool m_scripted;
    QPointer<QMessageBox> m_warningBox;
};

} // namespace nbody::app
