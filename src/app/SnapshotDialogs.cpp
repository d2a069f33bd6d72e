#include "SnapshotDialogs.h"
#include "BodyCount.h"

#include "SimulationController.h"

#include "sim/io/Snapshot.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>
#include <QStringList>

namespace nbody::app {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// "*.h5 *.hdf5 *.hdf" from ".h5 .hdf5 .hdf".
QString patterns(const SnapshotFormat& f)
{
    QStringList out;
    for (const QString& e : qstr(f.extensions).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        out << QLatin1Char('*') + e;
    return out.join(QLatin1Char(' '));
}

QString filterOf(const SnapshotFormat& f)
{
    return QStringLiteral("%1 (%2)").arg(qstr(f.name), patterns(f));
}

} // namespace

QString snapshotNameFilters()
{
    QStringList all, rows;
    for (const SnapshotFormat& f : snapshotFormats()) {
        all << patterns(f);
        rows << filterOf(f);
    }
    return QObject::tr("Snapshots (%1)").arg(all.join(QLatin1Char(' '))) + QStringLiteral(";;")
        + rows.join(QStringLiteral(";;")) + QStringLiteral(";;") + QObject::tr("All files (*)");
}

QString askOpenSnapshot(QWidget* parent, const QString& startDir)
{
    return QFileDialog::getOpenFileName(parent, QObject::tr("Open snapshot"), startDir, snapshotNameFilters());
}

QString askSaveSnapshot(QWidget* parent, const QString& startDir)
{
    // The extension of the chosen format is added inside the dialog (default suffix), so the
    // "replace?" question is asked about the file that will really be written.
    QFileDialog dialog(parent, QObject::tr("Save snapshot"), startDir, snapshotNameFilters());
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    const auto suffixOf = [](const QString& filter) {
        for (const SnapshotFormat& f : snapshotFormats())
            if (filter == filterOf(f))
                return qstr(f.extensions).section(QLatin1Char(' '), 0, 0).mid(1); // ".h5" -> "h5"
        return QStringLiteral("h5");
    };
    dialog.setDefaultSuffix(suffixOf(dialog.selectedNameFilter()));
    QObject::connect(&dialog, &QFileDialog::filterSelected, &dialog,
                     [&dialog, suffixOf](const QString& filter) { dialog.setDefaultSuffix(suffixOf(filter)); });
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return {};
    return dialog.selectedFiles().constFirst();
}

SnapshotSaver::SnapshotSaver(QMainWindow* window) : QObject(window), m_window(window)
{
    m_action = new QAction(tr("&Save snapshot…"), this);
    m_action->setShortcut(QKeySequence::Save);
    m_action->setStatusTip(tr("Save the current state and parameters (HDF5, CSV or Tipsy)"));
    connect(m_action, &QAction::triggered, this, &SnapshotSaver::save);
}

void SnapshotSaver::connectTo(SimulationController* controller)
{
    connect(this, &SnapshotSaver::saveRequested, controller, &SimulationController::saveSnapshot);
    connect(controller, &SimulationController::snapshotSaved, this, &SnapshotSaver::onSaved);
    connect(controller, &SimulationController::saveFailed, this, &SnapshotSaver::onFailed);
}

void SnapshotSaver::save()
{
    const QString path = askSaveSnapshot(m_window, m_startDir);
    if (path.isEmpty())
        return;
    m_startDir = QFileInfo(path).absolutePath();
    m_window->statusBar()->showMessage(tr("Saving %1…").arg(QFileInfo(path).fileName()), 5000);
    emit saveRequested(path);
}

void SnapshotSaver::onSaved(const QString& path, qulonglong bodies, qulonglong step)
{
    m_window->statusBar()->showMessage(
        tr("Saved %1 (%2, step %3)").arg(QFileInfo(path).fileName(), bodyCountText(bodies)).arg(step), 10000);
}

void SnapshotSaver::onFailed(const QString& path, const QString& message)
{
    m_window->statusBar()->showMessage(tr("Could not save %1").arg(QFileInfo(path).fileName()), 15000);
    QMessageBox::warning(m_window, tr("Cannot save snapshot"),
                         tr("The snapshot could not be written; no file was left behind and the "
                            "simulation is unaffected.\n\n%1")
                             .arg(message));
}

} // namespace nbody::app
