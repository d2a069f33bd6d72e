// On a 1366 × 768 screen the Kernel dock clipped its "Layout" value and showed
// about three kernel rows (the "CUDA" heading cut), the Device dock elided its values in the
// middle, and the status bar's positions text was always "…". A real MainWindow (its Viewport
// drawing with the CPU kernel) at that size: every label of the Kernel and Run docks fits its
// width (or wraps into a label tall enough), nothing runs past the dock's right edge, every row
// of the kernel table is shown, every Device value has the room its wrapped text needs, and
// the status bar's labels show their whole text, with the full reasons in tooltips.
// NBODY_SCREENSHOT_DIR=DIR saves the window and the docks as DIR/laptop-*.png.
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include "AppSetup.h"
#include "DeviceDock.h"
#include "DiagnosticsDock.h"
#include "GuiTestMain.h"
#include "KernelDock.h"
#include "MainWindow.h"
#include "MessageBar.h"
#include "RunDock.h"
#include "SelectionDock.h"
#include "ValidationDock.h"
#include "Viewport.h"

#include "sim/core/KernelRegistry.h"

#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QScreen>
#include <QHeaderView>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QToolTip>
#include <QFormLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTest>
#include <QTextDocument>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>
#include <memory>

using nbody::app::DeviceDock;
using nbody::app::KernelDock;
using nbody::app::MainWindow;
using nbody::app::RunDock;

namespace {

constexpr int kWaitMs = 30'000;

QString plainText(const QLabel* l)
{
    if (l->textFormat() == Qt::PlainText || !Qt::mightBeRichText(l->text()))
        return l->text();
    QTextDocument d;
    d.setHtml(l->text());
    return d.toPlainText();
}

/// Every visible label under `dock` whose text does not fit: wider than the label (one line),
/// a wrapped label shorter than its text needs, or a label running past the right edge of the
/// dock's visible area (its scroll area's viewport).
QStringList clippedLabels(QDockWidget* dock)
{
    QStringList problems;
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    QWidget* area = scroll ? scroll->viewport() : dock->widget();
    for (QLabel* l : dock->findChildren<QLabel*>()) {
        if (!l->isVisibleTo(dock) || l->text().isEmpty())
            continue;
        // As drawn: a mnemonic's '&' is an underline, "&&" one '&'.
        QString text = plainText(l);
        if (l->buddy())
            text.replace(QLatin1String("&&"), QStringLiteral("\x01")).remove(QLatin1Char('&')).replace(QStringLiteral("\x01"), QStringLiteral("&"));
        const int width = l->contentsRect().width();
        if (!l->wordWrap()) {
            const int advance = l->fontMetrics().horizontalAdvance(text);
            if (advance > width)
                problems << QStringLiteral("'%1': %2 px in %3").arg(text).arg(advance).arg(width);
        } else if (l->height() < l->heightForWidth(l->width())) {
            problems << QStringLiteral("'%1': %2 px tall, needs %3").arg(text).arg(l->height()).arg(l->heightForWidth(l->width()));
        }
        const int right = l->mapTo(area, QPoint(l->width(), 0)).x();
        if (right > area->width() + 1)
            problems << QStringLiteral("'%1': right edge %2 beyond the visible %3").arg(text).arg(right).arg(area->width());
        if (l->text().contains(QStringLiteral("…")) && !l->toolTip().contains(text.chopped(1)))
            problems << QStringLiteral("'%1': elided").arg(text);
    }
    return problems;
}

} // namespace

class TestDockText : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> m_window;
    bool m_openedMaximized = false; ///< the window's state and size as constructed
    QSize m_openedSize;

    void saveScreenshot(QWidget* w, const QString& name)
    {
        const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR");
        if (dir.isEmpty())
            return;
        QDir().mkpath(dir);
        QVERIFY(w->grab().save(QDir(dir).filePath(name)));
    }

    /// Brings `dock` to the front of its tab group and lets the layouts settle.
    void front(QDockWidget* dock)
    {
        dock->show();
        dock->raise();
        QTRY_VERIFY_WITH_TIMEOUT(dock->isVisible() && !dock->visibleRegion().isEmpty(), kWaitMs);
        QTest::qWait(150);
    }

private slots:
    void initTestCase()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        nbody::app::StartupConfig config;
        config.kernelId = QStringLiteral("cpu");
        config.bodies = 1001;
        // Running, with diagnostics every 5 steps: the charts then have data, offsets and
        // multipliers in their axis titles (chartTextIsWhole).
        config.diagnosticsInterval = 5;
        config.startRunning = true;
        m_window = std::make_unique<MainWindow>(config, nbody::app::Automation{});
        m_openedMaximized = m_window->windowState() & Qt::WindowMaximized;
        m_openedSize = m_window->size();
        m_window->setWindowState(Qt::WindowNoState);
        m_window->resize(1366, 768); // a laptop's screen
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        auto* viewport = m_window->findChild<nbody::app::Viewport*>();
        QTRY_VERIFY_WITH_TIMEOUT(viewport->isReady() && viewport->hasContent(), kWaitMs);
        qInfo("window %d x %d", m_window->width(), m_window->height());
        QVERIFY(m_window->width() <= 1366);
    }

    void kernelDockShowsEveryRowAndValue()
    {
        auto* dock = m_window->findChild<KernelDock*>();
        QVERIFY(dock);
        front(dock);
        saveScreenshot(dock, QStringLiteral("laptop-kernel-dock.png"));
        // CUDA kernels have the most text (a ceiling, launch parameters): show the widest
        // kernel of each backend in turn.
        for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
            dock->setKernel(QString::fromUtf8(k.id.data(), qsizetype(k.id.size())));
            // The wrapped labels take their height once the layout has settled: 30 ms was not
            // always enough on two busy cores (seen in the 1366 × 768 trial: 'needs 28 px' at
            // 14 px, passing on the next run). Up to 5 s for the layout; then every label fits.
            QStringList problems;
            QElapsedTimer settle;
            settle.start();
            do {
                QTest::qWait(30);
                problems = clippedLabels(dock);
            } while (!problems.isEmpty() && settle.elapsed() < 5000);
            QVERIFY2(problems.isEmpty(), qPrintable(QString::fromUtf8(k.id.data(), qsizetype(k.id.size())) + ": " +
                                                    problems.join(QStringLiteral("; "))));
        }
        dock->setKernel(QStringLiteral("cpu"));
        // Every row of the table (the CPU and CUDA headings and each kernel) inside it: no
        // scrolling inside the table, no row cut at its bottom.
        auto* table = dock->findChild<QTreeWidget*>(QStringLiteral("kernelTable"));
        QVERIFY(table);
        QCOMPARE(table->verticalScrollBar()->maximum(), 0);
        int rows = 0;
        for (int g = 0; g < table->topLevelItemCount(); ++g) {
            QTreeWidgetItem* group = table->topLevelItem(g);
            QList<QTreeWidgetItem*> items{group};
            for (int i = 0; i < group->childCount(); ++i)
                items << group->child(i);
            for (QTreeWidgetItem* item : items) {
                ++rows;
                const QRect r = table->visualItemRect(item);
                QVERIFY2(r.isValid() && r.bottom() <= table->viewport()->height(),
                         qPrintable(item->text(0) + QStringLiteral(" cut at the table's bottom")));
                for (int c = 0; c < (item == group ? 1 : table->columnCount()); ++c) {
                    const int room = item == group ? table->viewport()->width() : table->columnWidth(c);
                    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
                    const int advance = table->fontMetrics().horizontalAdvance(item->text(c)) + margin;
                    QVERIFY2(advance <= room, qPrintable(QStringLiteral("'%1': %2 px in %3").arg(item->text(c)).arg(advance).arg(room)));
                }
            }
        }
        QCOMPARE(rows, int(nbody::kernelRegistry().size()) + table->topLevelItemCount());
    }

    void runDockFits()
    {
        auto* dock = m_window->findChild<RunDock*>();
        front(dock);
        const QStringList problems = clippedLabels(dock);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
        saveScreenshot(dock, QStringLiteral("laptop-run-dock.png"));
    }

    void runDockShowsTheSystemRows()
    {
        // Maximised on a 1366 × 768 screen, the galaxy collision's source (how N was sized for
        // the kernel) wrapped into six lines and pushed the Positions row below the fold of the
        // Run dock, its text cut at the bottom edge. With that source, every row of the System
        // box, label and value, is whole in sight without scrolling, at the screen's height and
        // with a title bar or a panel taking from it; what does not fit a line is in a tooltip.
        auto* dock = m_window->findChild<RunDock*>();
        front(dock);
        auto* source = dock->findChild<QLabel*>(QStringLiteral("sourceLabel"));
        QVERIFY(source);
        const QString original = source->toolTip().isEmpty() ? source->text() : source->toolTip();
        const QString galaxy = QStringLiteral(
            "Galaxy collision: 1024 bodies, seed 42 (N sized for 25 steps/s: 25.4 ms per step on cpu (about 39.3 "
            "steps/s), from an evaluation of 25.4 ms measured at N = 1024 on cpu)");
        dock->setSource(galaxy);
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        auto* form = qobject_cast<QFormLayout*>(source->parentWidget()->layout());
        QVERIFY(scroll && form);
        // Every label clipped in itself, and every row of the System box out of sight.
        const auto problems = [&] {
            QStringList found = clippedLabels(dock);
            for (int row = 0; row < form->rowCount(); ++row) {
                for (const QFormLayout::ItemRole role : {QFormLayout::LabelRole, QFormLayout::FieldRole}) {
                    QLayoutItem* item = form->itemAt(row, role);
                    QWidget* w = item ? item->widget() : nullptr;
                    if (!w || !w->isVisible())
                        continue;
                    const QRect r(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
                    if (!scroll->viewport()->rect().contains(r)) {
                        auto* l = qobject_cast<QLabel*>(w);
                        found << QStringLiteral("'%1' at y %2..%3, visible 0..%4")
                                     .arg(l ? l->text() : w->objectName()).arg(r.top()).arg(r.bottom())
                                     .arg(scroll->viewport()->height());
                    }
                }
            }
            return found;
        };
        const QSize before = m_window->size();
        for (const int height : {768, 740}) {
            m_window->resize(1366, height);
            QTRY_COMPARE_WITH_TIMEOUT(m_window->height(), height, 5000);
            // The wrapped labels take their height once the layout has settled (up to 5 s on two
            // busy cores, as in kernelDockShowsEveryRowAndValue).
            QStringList found;
            QElapsedTimer settle;
            settle.start();
            do {
                QTest::qWait(30);
                scroll->verticalScrollBar()->setValue(0);
                found = problems();
            } while (!found.isEmpty() && settle.elapsed() < 5000);
            QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("window %1 px tall: ").arg(height) +
                                                 found.join(QStringLiteral("; "))));
        }
        // Whole where it is cut.
        QVERIFY2(source->text() == galaxy || source->toolTip() == galaxy, qPrintable(source->toolTip()));
        saveScreenshot(dock, QStringLiteral("laptop-run-dock-source.png"));
        dock->setSource(original);
        m_window->resize(before);
        QTest::qWait(200);
    }

    void selectionDockFits()
    {
        // The Selection dock at 1366 × 768: its status line and every row fit.
        auto* dock = m_window->selectionDock();
        QVERIFY(dock);
        front(dock);
        const QStringList problems = clippedLabels(dock);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
        // Follow (L) and Clear in sight without scrolling (in a trial they were below the rows,
        // out of the column's ~340 px).
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(scroll);
        scroll->verticalScrollBar()->setValue(0);
        for (QWidget* w : {static_cast<QWidget*>(dock->followBox()), dock->findChild<QWidget*>(QStringLiteral("selectionClear"))}) {
            QVERIFY(w);
            const QRect r(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
            QVERIFY2(scroll->viewport()->rect().contains(r),
                     qPrintable(QStringLiteral("%1 at y %2..%3, visible 0..%4").arg(w->objectName()).arg(r.top()).arg(r.bottom()).arg(scroll->viewport()->height())));
        }
        saveScreenshot(dock, QStringLiteral("laptop-selection-dock.png"));
    }

    void dockTabTitlesAreWhole()
    {
        // A trial at 1366 × 768: the right-hand column held six tabbed docks (Run,
        // Kernel, View, Validation, Device, Selection) in about 340 px, shown as "Run", "Ke…",
        // "V…", "Valid…", "De…", "Selec…". Every tabbed dock's title is in a visible tab of its
        // group, inside the tab bar (no scroll buttons hiding a tab), and its tab is as wide as
        // QTabBar's own size hint for that title (text advance + PM_TabBarTabHSpace; a narrower
        // tab is where QTabBar elides the text).
        QStringList tabbed, shown;
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            if (!dock->isFloating() && dock->isVisibleTo(m_window.get()) && !m_window->tabifiedDockWidgets(dock).isEmpty())
                tabbed << dock->windowTitle();
        QVERIFY2(tabbed.size() >= 6, qPrintable(tabbed.join(QStringLiteral(", ")))); // every dock but at most one
        QStringList problems;
        for (QTabBar* bar : m_window->findChildren<QTabBar*>()) {
            if (!bar->isVisible() || bar->parentWidget() != m_window.get())
                continue; // QMainWindow keeps its unused tab bars hidden
            const int hspace = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
            for (int i = 0; i < bar->count(); ++i) {
                const QString text = bar->tabText(i);
                shown << text;
                const QRect r = bar->tabRect(i);
                const int needs = bar->fontMetrics().size(Qt::TextShowMnemonic, text).width() + hspace;
                if (r.width() < needs)
                    problems << QStringLiteral("'%1': tab %2 px wide, needs %3").arg(text).arg(r.width()).arg(needs);
                if (!bar->rect().contains(r))
                    problems << QStringLiteral("'%1': tab outside its bar").arg(text);
            }
        }
        for (const QString& title : tabbed)
            if (!shown.contains(title))
                problems << QStringLiteral("'%1': no tab").arg(title);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
    }

    void runDockKernelNamesPrecisionOnce()
    {
        // A trial at 1366 × 768: the Solar System's kernel read "CPU fp64 reference
        // (OpenMP) (fp64)". Every row's label names its precision exactly once.
        auto* dock = m_window->findChild<RunDock*>();
        QLabel* label = nullptr;
        for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
            dock->setKernel(&k);
            if (!label) // the label that shows the row's name
                for (QLabel* l : dock->findChildren<QLabel*>())
                    if (l->text().startsWith(QString::fromUtf8(k.name.data(), qsizetype(k.name.size()))))
                        label = l;
            QVERIFY2(label, k.id.data());
            const QString text = label->text(), precision = QString::fromUtf8(nbody::toString(k.precision).data(), qsizetype(nbody::toString(k.precision).size()));
            QCOMPARE(text.count(precision), 1);
            QVERIFY2(text.startsWith(QString::fromUtf8(k.name.data(), qsizetype(k.name.size()))), qPrintable(text));
        }
    }

    void deviceDockValuesAreWhole()
    {
        auto* dock = m_window->findChild<DeviceDock*>();
        front(dock);
        QTreeWidget* tree = dock->view()->tree();
        QCOMPARE(tree->textElideMode(), Qt::ElideNone);
        const int valueWidth = tree->columnWidth(1) - 8;
        QVERIFY(tree->columnWidth(0) + tree->columnWidth(1) <= tree->viewport()->width() + 1);
        int checked = 0;
        for (int i = 0; i < tree->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* top = tree->topLevelItem(i);
            for (int j = 0; j < top->childCount(); ++j) {
                QTreeWidgetItem* item = top->child(j);
                const QRect r = tree->visualItemRect(item);
                const QFontMetrics fm = tree->fontMetrics();
                // The label whole in its column; the value's lines (at least its width over the
                // column's) all inside the row.
                QVERIFY2(fm.horizontalAdvance(item->text(0)) + 8 <= tree->columnWidth(0), qPrintable(item->text(0)));
                const int lines = int(std::ceil(double(fm.horizontalAdvance(item->text(1))) / double(valueWidth)));
                QVERIFY2(r.height() >= lines * fm.lineSpacing(),
                         qPrintable(QStringLiteral("'%1': %2 px tall for %3 line(s) at %4 px")
                                        .arg(item->text(1)).arg(r.height()).arg(lines).arg(valueWidth)));
                QVERIFY2(item->toolTip(1).contains(item->text(1)), qPrintable(item->text(1)));
                ++checked;
            }
        }
        QVERIFY(checked > 5);
        saveScreenshot(dock, QStringLiteral("laptop-device-dock.png"));
    }

    void kernelDockCombosFit()
    {
        // The tree rows' force-accuracy list read "Off: θ sets it (Advan" at 1366 × 768: every
        // item of every list in the Kernel dock fits the list's text field.
        auto* dock = m_window->findChild<KernelDock*>();
        QVERIFY(dock);
        const QString kernel = dock->kernelId();
        dock->setKernel(QStringLiteral("tree-cpu")); // the Tree parameters box (emits nothing)
        front(dock);
        auto* treeBox = dock->findChild<QWidget*>(QStringLiteral("treeParams"));
        QVERIFY(treeBox);
        QTRY_VERIFY(treeBox->isVisible());
        QTest::qWait(100);
        saveScreenshot(dock, QStringLiteral("laptop-kernel-dock-tree.png"));
        int combos = 0;
        for (QComboBox* combo : dock->findChildren<QComboBox*>()) {
            if (!combo->isVisibleTo(dock))
                continue;
            ++combos;
            QStyleOptionComboBox opt;
            opt.initFrom(combo);
            opt.editable = combo->isEditable();
            opt.frame = combo->hasFrame();
            const int room = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo).width();
            for (int i = 0; i < combo->count(); ++i) {
                const int advance = combo->fontMetrics().horizontalAdvance(combo->itemText(i));
                QVERIFY2(advance <= room, qPrintable(QStringLiteral("%1: '%2' %3 px in %4")
                                                         .arg(combo->objectName(), combo->itemText(i))
                                                         .arg(advance)
                                                         .arg(room)));
            }
        }
        QVERIFY(combos >= 1);
        dock->setKernel(kernel);
    }

    void statusBarTextIsWhole()
    {
        QStatusBar* bar = m_window->statusBar();
        auto* interop = bar->findChild<QLabel*>(QStringLiteral("interopLabel"));
        QVERIFY(interop);
        QTRY_VERIFY_WITH_TIMEOUT(!interop->text().startsWith(QLatin1String("starting")), kWaitMs);
        QTest::qWait(1200); // a step time and a rate shown
        for (QLabel* l : bar->findChildren<QLabel*>()) {
            if (!l->isVisible() || l->text().isEmpty())
                continue;
            QVERIFY2(!l->text().contains(QStringLiteral("…")), qPrintable(l->text()));
            const int advance = l->fontMetrics().horizontalAdvance(l->text());
            QVERIFY2(advance <= l->contentsRect().width(),
                     qPrintable(QStringLiteral("'%1': %2 px in %3").arg(l->text()).arg(advance).arg(l->contentsRect().width())));
        }
        // Maximised on a 1366 × 768 screen (no size grip: the window manager hides it), the last
        // field's text ran to the screen's last pixel. Every label inside the bar, and the
        // rightmost a layout's margin from its edge.
        bar->setSizeGripEnabled(false);
        QTest::qWait(200);
        const int margin = bar->style()->pixelMetric(QStyle::PM_LayoutRightMargin, nullptr, m_window.get());
        int rightmost = -1;
        QString last;
        for (QLabel* l : bar->findChildren<QLabel*>()) {
            if (!l->isVisible() || l->text().isEmpty())
                continue;
            const int advance = l->fontMetrics().horizontalAdvance(l->text());
            QVERIFY2(advance <= l->contentsRect().width(),
                     qPrintable(QStringLiteral("'%1': %2 px in %3").arg(l->text()).arg(advance).arg(l->contentsRect().width())));
            if (l->geometry().right() > rightmost) {
                rightmost = l->geometry().right();
                last = l->text();
            }
        }
        QVERIFY2(rightmost + 1 + margin <= bar->width(),
                 qPrintable(QStringLiteral("'%1' ends at %2 px of %3, less than %4 px from the edge")
                                .arg(last).arg(rightmost + 1).arg(bar->width()).arg(margin)));
        bar->setSizeGripEnabled(true);
        // The interop label says which path; its tooltip and the Run dock say why.
        const QString state = m_window->findChild<nbody::app::Viewport*>()->interopState();
        QVERIFY2(state.startsWith(interop->text()), qPrintable(interop->text() + QStringLiteral(" / ") + state));
        QVERIFY2(interop->toolTip().contains(state), qPrintable(interop->toolTip()));
        saveScreenshot(m_window.get(), QStringLiteral("laptop-window.png"));
    }

    void chartTextIsWhole()
    {
        // The Diagnostics dock's charts: no tick label or axis title is elided ("..." is how Qt
        // Charts cuts a text that does not fit its room). tst_dock_text_dpr2 runs this whole
        // suite at a device pixel ratio of 2 (QT_SCALE_FACTOR=2).
        auto* dock = m_window->findChild<nbody::app::DiagnosticsDock*>();
        QVERIFY(dock);
        front(dock);
        QTest::qWait(1500); // a few evaluations drawn, so the axes have ranges
        int texts = 0;
        for (QChartView* view : dock->findChildren<QChartView*>()) {
            if (!view->isVisible())
                continue;
            for (QGraphicsItem* item : view->scene()->items()) {
                QString text;
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(item))
                    text = t->toPlainText();
                else if (auto* st = dynamic_cast<QGraphicsSimpleTextItem*>(item))
                    text = st->text();
                if (text.isEmpty() || !item->isVisible())
                    continue;
                ++texts;
                QVERIFY2(!text.contains(QStringLiteral("...")) && !text.contains(QChar(0x2026)),
                         qPrintable(QStringLiteral("'%1' (ratio %2)").arg(text).arg(m_window->devicePixelRatioF())));
            }
        }
        QVERIFY2(texts >= 8, qPrintable(QString::number(texts)));
        saveScreenshot(dock, QStringLiteral("laptop-diagnostics-dock.png"));
    }

    void chartsFitTheDock()
    {
        // Maximised on a 1366 × 768 screen, the charts were taller than the Diagnostics dock's
        // default height (each grew so that its vertical axis titles were whole), so their time
        // axis was below the fold of the dock's scroll area. Every chart, its time axis and
        // title included, is inside the visible area, with no vertical scrolling: at the
        // screen's height and with a title bar or a panel taking from it.
        auto* dock = m_window->findChild<nbody::app::DiagnosticsDock*>();
        QVERIFY(dock);
        front(dock);
        auto* area = dock->findChild<QScrollArea*>(QStringLiteral("chartsArea"));
        QVERIFY(area);
        // This window's system (the seeds' cube at dt = 0.1) drifts in energy: the warning above
        // the charts, which scrolls with them, is another matter. Paused, without it.
        QAction* pause = nullptr;
        QAction* start = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("&Pause"))
                pause = a;
            if (a->text() == QStringLiteral("&Start"))
                start = a;
        }
        QVERIFY(pause && start);
        pause->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), kWaitMs);
        QTest::qWait(200); // the last evaluation drawn
        dock->setEnergyWarning(QString());
        const QSize before = m_window->size();
        for (const int height : {768, 740}) {
            m_window->resize(1366, height);
            QTRY_COMPARE_WITH_TIMEOUT(m_window->height(), height, 5000);
            QTest::qWait(300); // the charts lay out their axes and titles
            QStringList problems;
            int charts = 0;
            for (QChartView* view : dock->findChildren<QChartView*>()) {
                if (!view->isVisible())
                    continue;
                ++charts;
                const QRect r(view->mapTo(area->viewport(), QPoint(0, 0)), view->size());
                if (!area->viewport()->rect().contains(r))
                    problems << QStringLiteral("'%1' at y %2..%3, visible 0..%4")
                                    .arg(view->chart()->title()).arg(r.top()).arg(r.bottom()).arg(area->viewport()->height());
                // The time axis' title drawn, whole, inside the view.
                const QList<QAbstractAxis*> axes = view->chart()->axes(Qt::Horizontal);
                if (axes.isEmpty() || !axes.front()->isTitleVisible() || axes.front()->titleText().isEmpty())
                    problems << QStringLiteral("'%1': no time axis title").arg(view->chart()->title());
            }
            QCOMPARE(charts, 4);
            QVERIFY2(area->verticalScrollBar()->maximum() == 0,
                     qPrintable(QStringLiteral("window %1 px tall: the charts scroll by %2 px in %3")
                                    .arg(height).arg(area->verticalScrollBar()->maximum()).arg(area->viewport()->height())));
            QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("window %1 px tall: ").arg(height) +
                                                    problems.join(QStringLiteral("; "))));
        }
        saveScreenshot(dock, QStringLiteral("laptop-diagnostics-fits.png"));
        m_window->resize(before);
        start->trigger();
        QTest::qWait(200);
    }

    void ratioAsAsked()
    {
        // The run at ratio 2 really is at 2 (the checks above then hold in device pixels).
        const double asked = qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? qgetenv("QT_SCALE_FACTOR").toDouble() : 1.0;
        QCOMPARE(m_window->devicePixelRatioF(), asked);
    }

    void opensWithinALaptopScreen()
    {
        // A trial on a 1366 × 768 screen with a window manager: the window opened
        // at 1280 × 768 (the default 820 bounded by the screen) and its title bar pushed the
        // status bar below the bottom edge. Where the default and a title bar do not fit, it
        // opens maximised (the window manager then fits the frame and any panel in).
        using nbody::app::initialGeometry;
        const auto laptop = initialGeometry(QSize(1366, 768));
        QVERIFY(laptop.maximized);
        QCOMPARE(laptop.size, QSize(1280, 768));
        QVERIFY(initialGeometry(QSize(1366, 740)).maximized); // with a 28 px panel
        QVERIFY(initialGeometry(QSize(1280, 1024)).maximized); // as wide as the window: no room for borders
        QVERIFY(initialGeometry(QSize(1440, 860)).maximized);  // 820 + a title bar is more than 860
        const auto desktop = initialGeometry(QSize(1920, 1050));
        QVERIFY(!desktop.maximized);
        QCOMPARE(desktop.size, QSize(1280, 820));
        // This test's screen (2880 × 1800, scripts/test.sh) holds the default: a new window is
        // not maximised and has the default size.
        const QSize available = QGuiApplication::primaryScreen()->availableGeometry().size();
        QCOMPARE(m_openedMaximized, initialGeometry(available).maximized);
        QCOMPARE(m_openedSize, initialGeometry(available).size);
    }

    void validationDockFits()
    {
        // The Validation dock at 1366 × 768: its result line and every row whole.
        auto* dock = m_window->findChild<nbody::app::ValidationDock*>();
        QVERIFY(dock);
        front(dock);
        const QStringList problems = clippedLabels(dock);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
        saveScreenshot(dock, QStringLiteral("laptop-validation-dock.png"));
    }

    void diagnosticsDockCanBeSmall()
    {
        // On a 1366 × 768 screen the Diagnostics dock could not be made smaller than its charts
        // (the view stayed 370 px tall). Its minimum is its row of controls (the charts scroll
        // below that; so do the Validation and Device docks in its tab group), and made that
        // small, the view gets the height.
        auto* dock = m_window->findChild<nbody::app::DiagnosticsDock*>();
        auto* viewport = m_window->findChild<nbody::app::Viewport*>();
        QVERIFY(dock && viewport);
        front(dock);
        const int before = dock->height();
        int minimum = dock->minimumSizeHint().height(); // its tab group's: the largest of theirs
        for (QDockWidget* d : m_window->tabifiedDockWidgets(dock))
            minimum = std::max(minimum, d->minimumSizeHint().height());
        qInfo("Diagnostics dock: %d px tall, minimum %d px; view %d x %d", before, minimum, viewport->width(),
              viewport->height());
        QVERIFY2(minimum <= 120, qPrintable(QString::number(minimum)));
        m_window->resizeDocks({dock}, {minimum}, Qt::Vertical);
        QTRY_VERIFY_WITH_TIMEOUT(dock->height() <= minimum + 10, 5000);
        qInfo("made small: dock %d px, view %d x %d", dock->height(), viewport->width(), viewport->height());
        QVERIFY2(viewport->height() >= 500, qPrintable(QString::number(viewport->height())));
        saveScreenshot(m_window.get(), QStringLiteral("laptop-diagnostics-small.png"));
        m_window->resizeDocks({dock}, {before}, Qt::Vertical);
    }

    void minimumWindowLeavesTheViewUsable()
    {
        // At the window's minimum size (1076 × 528 in a trial) the view was 150 px tall and the
        // charts' axis titles ran over their ticks. Now the minimum fits a laptop's screen with
        // room to spare and leaves the view at least 480 × 320.
        const QSize minimum = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        qInfo("minimum window %d x %d", minimum.width(), minimum.height());
        QVERIFY(minimum.width() <= 1366 && minimum.height() <= 768 - 60);
        const QSize before = m_window->size();
        m_window->resize(minimum);
        auto* viewport = m_window->findChild<nbody::app::Viewport*>();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->size() == minimum.expandedTo(m_window->minimumSize()), 5000);
        QTest::qWait(200);
        qInfo("at the minimum the view is %d x %d", viewport->width(), viewport->height());
        QVERIFY2(viewport->width() >= 480 && viewport->height() >= 320,
                 qPrintable(QStringLiteral("%1 x %2").arg(viewport->width()).arg(viewport->height())));
        saveScreenshot(m_window.get(), QStringLiteral("laptop-minimum-window.png"));
        m_window->resize(before);
        QTest::qWait(200);
    }

    void statusBarMessageIsReadable()
    {
        // At 1366 px a long message was cut where the permanent readouts begin ("…with block
        // time s"). It is drawn elided to the room it has, and its tooltip has it whole.
        auto* bar = qobject_cast<nbody::app::MessageBar*>(m_window->statusBar());
        QVERIFY(bar);
        const QString message = QStringLiteral("A long message ") + QStringLiteral("that goes on ").repeated(30) +
                                QStringLiteral("to its end");
        bar->showMessage(message);
        QTest::qWait(50);
        const QRect area = bar->messageArea();
        QVERIFY2(area.width() > 200, qPrintable(QString::number(area.width())));
        for (QWidget* w : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (w->isVisible())
                QVERIFY2(area.right() < w->x(), qPrintable(w->objectName()));
        QVERIFY(bar->messageElided());
        saveScreenshot(bar, QStringLiteral("laptop-status-message.png"));
        const QString shown = bar->shownMessage();
        QVERIFY2(shown.endsWith(QStringLiteral("…")) && shown.startsWith(QLatin1String("A long message")), qPrintable(shown));
        QVERIFY(bar->fontMetrics().horizontalAdvance(shown) <= area.width());
        QHelpEvent help(QEvent::ToolTip, area.center(), bar->mapToGlobal(area.center()));
        QApplication::sendEvent(bar, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QLatin1String("to its end")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        bar->clearMessage();

        // The app's own line for Reverse time refused with block time steps is whole (last: the
        // switch to block steps re-bases E₀, which marks the charts of the other tests).
        auto* timestep = m_window->findChild<QComboBox*>(QStringLiteral("timestep"));
        QVERIFY(timestep);
        timestep->setCurrentText(QStringLiteral("block"));
        QTRY_VERIFY_WITH_TIMEOUT(bar->currentMessage().startsWith(QLatin1String("Reverse time is unavailable")), kWaitMs);
        QVERIFY2(bar->currentMessage().contains(QLatin1String("block time steps")), qPrintable(bar->currentMessage()));
        QVERIFY2(!bar->messageElided(), qPrintable(QStringLiteral("'%1' in %2 px").arg(bar->currentMessage()).arg(area.width())));
        timestep->setCurrentText(QStringLiteral("fixed"));
        bar->clearMessage();
    }

    void cleanupTestCase() { m_window.reset(); }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestDockText>(argc, argv);
}
#include "tst_dock_text.moc"
