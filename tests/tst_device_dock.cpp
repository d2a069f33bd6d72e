// The Device dock and Help → About this machine on a real MainWindow (its Viewport drawing with
// the CPU kernel): the OpenGL rows are the strings glGetString returns in the view's context
// (queried here through Qt's own QOpenGLFunctions, not through the app's code), the interop row
// says it is not in use and why (the reason queryCuda() gives on a machine without a device),
// the CUDA and OpenMP rows are describeMachine's, Copy puts the text form on the clipboard, and
// About this machine shows the same rows after the application's. NBODY_SCREENSHOT_DIR=dir saves
// the dock as dir/device-dock.png (docs/images/device-dock.png).
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include "AppSetup.h"
#include "GuiTestMain.h"
#include "DeviceDock.h"
#include "DiagnosticsDock.h"
#include "KernelDock.h"
#include "MainWindow.h"
#include "Viewport.h"

#include "sim/base/MachineInfo.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QMenuBar>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QTest>
#include <QTreeWidget>

#include <omp.h>

#include <memory>

using nbody::app::DeviceDock;
using nbody::app::MachineInfoView;
using nbody::app::MainWindow;

namespace {

constexpr int kWaitMs = 30'000; // the machine may be busy with other builds

/// The value shown in the tree for section `section`, row `row` (column 1), or a null QString.
QString shown(const QTreeWidget* tree, const QString& section, const QString& row)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* top = tree->topLevelItem(i);
        if (top->data(0, Qt::UserRole).toString() != section)
            continue;
        for (int j = 0; j < top->childCount(); ++j)
            if (top->child(j)->data(0, Qt::UserRole).toString() == row)
                return top->child(j)->text(1);
    }
    return {};
}

QString glString(QOpenGLFunctions* f, unsigned name)
{
    return QString::fromUtf8(reinterpret_cast<const char*>(f->glGetString(name)));
}

} // namespace

class TestDeviceDock : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        nbody::app::StartupConfig config;
        config.kernelId = QStringLiteral("cpu");
        config.bodies = 1001; // no multiple of any block size
        m_window = std::make_unique<MainWindow>(config, nbody::app::Automation{});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_dock = m_window->findChild<DeviceDock*>();
        m_viewport = m_window->findChild<nbody::app::Viewport*>();
        QVERIFY(m_dock && m_viewport);
        // The view has made its context and its buffers (the interop decision) and drawn.
        QTRY_VERIFY_WITH_TIMEOUT(m_viewport->isReady() && m_viewport->hasContent(), kWaitMs);
    }

    void dockIsAmongTheOthers()
    {
        // A tab of the bottom area with the Diagnostics and Validation docks (the right-hand
        // column keeps the run's controls); toggled from View.
        QVERIFY(m_window->tabifiedDockWidgets(m_dock).contains(m_window->findChild<nbody::app::DiagnosticsDock*>()));
        QCOMPARE(m_window->dockWidgetArea(m_dock), Qt::BottomDockWidgetArea);
        bool inViewMenu = false, inHelpMenu = false;
        for (QAction* menu : m_window->menuBar()->actions()) {
            if (!menu->menu())
                continue;
            const QString title = menu->text().remove(QLatin1Char('&'));
            if (title == QLatin1String("View"))
                inViewMenu = menu->menu()->actions().contains(m_dock->toggleViewAction());
            if (title == QLatin1String("Help"))
                inHelpMenu = menu->menu()->actions().contains(m_dock->aboutMachineAction());
        }
        QVERIFY(inViewMenu);
        QVERIFY(inHelpMenu);
    }

    void openGlRowsAreTheViewsContext()
    {
        // The strings as Qt's own GL functions read them in the view's context.
        m_viewport->makeCurrent();
        QOpenGLFunctions* f = m_viewport->context()->functions();
        const QString vendor = glString(f, GL_VENDOR);
        const QString renderer = glString(f, GL_RENDERER);
        const QString version = glString(f, GL_VERSION);
        m_viewport->doneCurrent();
        QVERIFY(!vendor.isEmpty() && !renderer.isEmpty() && !version.isEmpty());

        const QTreeWidget* tree = m_dock->view()->tree();
        QTRY_COMPARE_WITH_TIMEOUT(shown(tree, "opengl", "vendor"), vendor, kWaitMs);
        QCOMPARE(shown(tree, "opengl", "renderer"), renderer);
        QCOMPARE(shown(tree, "opengl", "version"), version);
        QVERIFY(shown(tree, "opengl", "context").contains(QGuiApplication::platformName()));

        // The interop row: on a machine without a CUDA device it is not in use, for the reason
        // queryCuda() gives (CudaGlInterop::create refuses with it).
        const nbody::CudaRuntimeInfo cuda = nbody::queryCuda();
        const QString interop = shown(tree, "opengl", "interop");
        if (!cuda.whyNone.empty())
            QCOMPARE(interop, QStringLiteral("not in use: ") + QString::fromStdString(cuda.whyNone));
        else // a device, but with the CPU kernel (and Mesa under Xvfb) the host uploads the positions
            QVERIFY2(interop.startsWith(QStringLiteral("not in use: ")) && interop.size() > 12, qPrintable(interop));

        // The CUDA and OpenMP rows are describeMachine's with this process's values.
        QCOMPARE(shown(tree, "openmp", "threads"), QString::number(omp_get_max_threads()));
        QCOMPARE(shown(tree, "cuda", "deviceCount"), QString::number(cuda.devices.size()));
        if (!cuda.whyNone.empty())
            QCOMPARE(shown(tree, "cuda", "whyNoDevice"), QString::fromStdString(cuda.whyNone));
    }

    void copyGivesTheTextForm()
    {
        QGuiApplication::clipboard()->clear();
        QTest::mouseClick(m_dock->view()->copyButton(), Qt::LeftButton);
        const QString text = QGuiApplication::clipboard()->text();
        QCOMPARE(text, QString::fromStdString(nbody::machineText(m_dock->sections())));
        QVERIFY(text.contains(QStringLiteral("OpenGL\n")));
        QVERIFY(text.contains(QStringLiteral("  OpenMP threads:")));

        // Ctrl+C copies the selected rows as "label: value" lines, in display order.
        QTreeWidget* tree = m_dock->view()->tree();
        QTreeWidgetItem* vendor = nullptr;
        QTreeWidgetItem* threads = nullptr;
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            for (int j = 0; j < tree->topLevelItem(i)->childCount(); ++j) {
                QTreeWidgetItem* item = tree->topLevelItem(i)->child(j);
                const QString key = item->parent()->data(0, Qt::UserRole).toString() + QLatin1Char('.') +
                                    item->data(0, Qt::UserRole).toString();
                if (key == QLatin1String("opengl.vendor"))
                    vendor = item;
                if (key == QLatin1String("openmp.threads"))
                    threads = item;
            }
        QVERIFY(vendor && threads);
        tree->clearSelection();
        vendor->setSelected(true); // selected first, shown after the OpenMP row
        threads->setSelected(true);
        m_dock->raise();
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QGuiApplication::clipboard()->text(),
                 QStringLiteral("OpenMP threads: %1\nVendor: %2\n").arg(threads->text(1), vendor->text(1)));
    }

    void screenshot()
    {
        const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("set NBODY_SCREENSHOT_DIR to save device-dock.png");
        // Floating, wide enough that no value is elided, for the README.
        m_dock->view()->tree()->clearSelection(); // the copy test's selection
        m_dock->setFloating(true);
        m_dock->resize(780, 330);
        m_dock->show();
        m_dock->raise();
        QVERIFY(QTest::qWaitForWindowExposed(m_dock));
        QTest::qWait(300);
        const QString path = QDir(dir).filePath(QStringLiteral("device-dock.png"));
        QVERIFY2(m_dock->grab().save(path), qPrintable(path));
        m_dock->setFloating(false);
    }

    void aboutThisMachine()
    {
        m_dock->aboutMachineAction()->trigger();
        QDialog* dialog = m_dock->aboutMachineDialog();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        const auto* view = dialog->findChild<MachineInfoView*>();
        QVERIFY(view);
        // The application's section, then exactly the dock's sections.
        const std::vector<nbody::MachineSection>& all = view->sections();
        QCOMPARE(all.size(), m_dock->sections().size() + 1);
        QCOMPARE(QString::fromStdString(all.front().key), QStringLiteral("application"));
        QVERIFY(shown(view->tree(), "application", "qt").startsWith(QString::fromLatin1(qVersion())));
        const std::vector<nbody::MachineSection> rest(all.begin() + 1, all.end());
        QCOMPARE(QString::fromStdString(nbody::machineText(rest)), m_dock->text());
        // The OpenGL rows as in the dock; the tree shows them.
        QCOMPARE(shown(view->tree(), "opengl", "vendor"), shown(m_dock->view()->tree(), "opengl", "vendor"));
        QCOMPARE(shown(view->tree(), "opengl", "interop"), shown(m_dock->view()->tree(), "opengl", "interop"));
        // A second trigger raises the same dialog.
        m_dock->aboutMachineAction()->trigger();
        QCOMPARE(m_dock->aboutMachineDialog(), dialog);
        // It follows the dock: a changed interop state reaches it.
        nbody::GlContextInfo gl = m_viewport->glContextInfo();
        gl.whyNoInterop = "test: a changed reason";
        m_dock->setGlContext(gl);
        QCOMPARE(shown(view->tree(), "opengl", "interop"), QStringLiteral("not in use: test: a changed reason"));
        dialog->close();
        QTRY_VERIFY(m_dock->aboutMachineDialog() == nullptr); // deleted on close
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    std::unique_ptr<MainWindow> m_window;
    DeviceDock* m_dock = nullptr;
    nbody::app::Viewport* m_viewport = nullptr;
};

int main(int argc, char** argv)
{
    QTEST_SET_MAIN_SOURCE_PATH
    return nbody::test::guiTestMain<TestDeviceDock>(argc, argv);
}
#include "tst_device_dock.moc"
