// Keyboard and wheel use on a real MainWindow (its Viewport drawing with the CPU kernel):
//  - keys typed into a text or number field go to the field and fire no single-key shortcut
//    ("abc" into G turns on neither Reverse time (B) nor Follow centre of mass (C); "4 096" into
//    the Validation dock's N does not start the run (Space)); Ctrl+R still resets from a field;
//    Enter applies the value and Escape puts it back, and both hand the keyboard to the view,
//    where Space starts and pauses (a toggle), P pauses and N steps; Space typed into a text
//    field of a running window is a space and pauses nothing;
//  - the wheel over an unfocused spin box or combo box of a dock scrolls the dock and leaves the
//    value; over a focused one it steps the value;
//  - a 0 typed into New from scenario's N box is refused in words (OK disabled), not replaced;
//  - every menu's mnemonics are unique (and every item has one);
//  - Help → Keyboard shortcuts lists every action with a shortcut, the tools' mouse gestures and
//    the view's keys (each one checked against the view: pressing it changes the picture), and
//    docs/shortcuts.md is the same table (NBODY_UPDATE_DOCS=1 rewrites it);
//  - Help → About lists every integrator of the registry;
//  - the Run dock shows the unit of G of the system (AU³ M☉⁻¹ day⁻² for the Solar System).
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include "AppSetup.h"
#include "GuiTestMain.h"
#include "KeyboardHelp.h"
#include "MainWindow.h"
#include "RunDock.h"
#include "ValidationDock.h"
#include "ViewDock.h"
#include "Viewport.h"

#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>

#include <functional>
#include <memory>

using nbody::app::MainWindow;
using nbody::app::RunDock;
using nbody::app::Viewport;

namespace {

constexpr int kWaitMs = 30'000;

/// The keys a widget is sent (KeyPress events), in order.
class KeySpy : public QObject {
public:
    explicit KeySpy(QWidget* w) : m_widget(w) { w->installEventFilter(this); }
    ~KeySpy() override
    {
        if (m_widget)
            m_widget->removeEventFilter(this);
    }
    QList<int> pressed;

protected:
    bool eventFilter(QObject*, QEvent* e) override
    {
        if (e->type() == QEvent::KeyPress)
            pressed << static_cast<QKeyEvent*>(e)->key();
        return false;
    }

private:
    QPointer<QWidget> m_widget;
};

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QAction* findAction(QWidget* w, const QString& text)
{
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    return nullptr;
}

/// Runs `check` on the next modal dialog (QDialog::exec blocks the caller), then closes it.
void onNextModal(std::function<void(QWidget*)> check)
{
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, check] {
        QWidget* modal = QApplication::activeModalWidget();
        if (!modal)
            return;
        timer->stop();
        timer->deleteLater();
        check(modal);
        if (!modal->isVisible())
            return; // the check accepted it
        if (auto* d = qobject_cast<QDialog*>(modal))
            d->reject();
        else
            modal->close();
    });
    timer->start();
}

} // namespace

class TestShortcuts : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> m_window;
    Viewport* m_viewport = nullptr;

    QAction* action(const QString& text)
    {
        QAction* a = findAction(m_window.get(), text);
        if (!a)
            qWarning("no action '%s'", qPrintable(text));
        return a;
    }

    /// Sends a key as the user types it: to the window's focus widget, through the shortcut map.
    void type(int key, Qt::KeyboardModifiers mods = Qt::NoModifier)
    {
        QWidget* target = QApplication::focusWidget();
        QVERIFY(target);
        QTest::keyClick(target, Qt::Key(key), mods);
    }

private slots:
    void initTestCase()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        nbody::app::StartupConfig config;
        config.kernelId = QStringLiteral("cpu");
        config.bodies = 1001;
        m_window = std::make_unique<MainWindow>(config, nbody::app::Automation{});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_viewport = m_window->findChild<Viewport*>();
        QTRY_VERIFY_WITH_TIMEOUT(m_viewport->isReady() && m_viewport->hasContent(), kWaitMs);
    }

    void lettersTypedIntoGDoNotFireShortcuts()
    {
        // B (Reverse time) and C (Follow centre of mass) are single-key shortcuts; typed into the
        // G field they are the field's keys. The field refuses letters (G is a number), so its
        // text stays; what it accepts it keeps, shortcut digits and the exponent's e included.
        auto* dock = m_window->findChild<RunDock*>();
        dock->raise();
        auto* g = dock->findChild<QDoubleSpinBox*>(QStringLiteral("gravitationalConstant"));
        QVERIFY(g);
        QAction* reverse = action(QStringLiteral("Reverse time"));
        QAction* follow = action(QStringLiteral("Follow centre of mass"));
        QAction* navigate = action(QStringLiteral("Navigate"));
        QVERIFY(reverse && follow && navigate);
        QVERIFY(reverse->isCheckable() && follow->isCheckable());
        QVERIFY(!reverse->isChecked() && !follow->isChecked());
        QSignalSpy reversed(reverse, &QAction::triggered);
        QSignalSpy followed(follow, &QAction::triggered);

        g->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(g->hasFocus());
        QWidget* field = QApplication::focusWidget();
        KeySpy keys(field);
        const QString before = g->text();
        QTest::keyClicks(field, QStringLiteral("abc"));
        QCOMPARE(keys.pressed, QList<int>({Qt::Key_A, Qt::Key_B, Qt::Key_C})); // the field got them
        QCOMPARE(reversed.count(), 0);
        QCOMPARE(followed.count(), 0);
        QVERIFY(!reverse->isChecked());
        QVERIFY(!follow->isChecked());
        QCOMPARE(g->text(), before);
        g->selectAll();
        QTest::keyClicks(field, QStringLiteral("2.5e-1"));
        QCOMPARE(g->text(), QStringLiteral("2.5e-1"));
        QVERIFY(navigate->isChecked()); // "2" typed, not the Add body tool
        type(Qt::Key_Escape); // the value in use back, the view has the keyboard
        QTRY_VERIFY(m_viewport->hasFocus());
        QCOMPARE(g->text(), before);
    }

    void spaceTypedIntoValidationBodiesDoesNotStart()
    {
        auto* dock = m_window->findChild<nbody::app::ValidationDock*>();
        QVERIFY(dock);
        dock->raise();
        auto* system = dock->findChild<QComboBox*>(QStringLiteral("validationSystem"));
        auto* bodies = dock->findChild<QSpinBox*>(QStringLiteral("validationBodies"));
        QVERIFY(system && bodies);
        const int systemBefore = system->currentIndex();
        const int bodiesBefore = bodies->value();
        for (int i = 0; i < system->count(); ++i)
            if (system->itemText(i).startsWith(QLatin1String("Plummer")))
                system->setCurrentIndex(i);
        QTRY_VERIFY(bodies->isEnabled());
        QAction* start = action(QStringLiteral("Start"));
        QAction* pause = action(QStringLiteral("Pause"));
        QVERIFY(start && pause);
        QVERIFY(start->isEnabled());
        QSignalSpy started(start, &QAction::triggered);

        bodies->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(bodies->hasFocus());
        bodies->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("4 096"));
        QCOMPARE(started.count(), 0);
        QTest::qWait(50);
        QVERIFY(!pause->isEnabled()); // not running
        QVERIFY(bodies->hasFocus());
        QCOMPARE(bodies->text(), QStringLiteral("4096")); // the field's, applied on Enter (FieldRange.h)

        type(Qt::Key_Escape);
        QTRY_VERIFY(m_viewport->hasFocus());
        bodies->setValue(bodiesBefore);
        system->setCurrentIndex(systemBefore);
        m_window->findChild<RunDock*>()->raise();
    }

    void spaceTypesInATextFieldWhileRunning()
    {
        // Space pauses a running simulation from the view, but in a text field of a dock it is a
        // space: the field takes the key (KeyboardFocus), the run goes on.
        auto* dock = m_window->findChild<RunDock*>();
        QVERIFY(dock);
        dock->raise();
        auto* body = dock->widget();
        QVERIFY(body);
        QLineEdit field(body); // a text field in a dock, as ParamForm makes for a free text row
        field.setObjectName(QStringLiteral("testTextField"));
        field.move(0, 0);
        field.show();
        QAction* start = action(QStringLiteral("Start"));
        QAction* pause = action(QStringLiteral("Pause"));
        QVERIFY(start && pause);
        start->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(pause->isEnabled(), kWaitMs);
        QSignalSpy paused(pause, &QAction::triggered);

        field.setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(field.hasFocus());
        QTest::keyClicks(&field, QStringLiteral("a b"));
        type(Qt::Key_Space);
        QCOMPARE(field.text(), QStringLiteral("a b "));
        QCOMPARE(paused.count(), 0);
        QVERIFY(pause->isEnabled()); // still running

        // From the view Space pauses.
        m_viewport->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(m_viewport->hasFocus());
        type(Qt::Key_Space);
        QCOMPARE(paused.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled() && !pause->isEnabled(), kWaitMs);
    }

    void modifiedShortcutsWorkInAField()
    {
        // Ctrl+R (Reset) with the cursor in a number field still resets.
        auto* dock = m_window->findChild<RunDock*>();
        dock->raise();
        auto* dt = dock->findChild<QDoubleSpinBox*>(QStringLiteral("dt"));
        QAction* reset = action(QStringLiteral("Reset"));
        QVERIFY(dt && reset);
        QVERIFY(reset->isEnabled());
        QSignalSpy resets(reset, &QAction::triggered);
        dt->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(dt->hasFocus());
        type(Qt::Key_R, Qt::ControlModifier);
        QCOMPARE(resets.count(), 1);
        type(Qt::Key_Escape);
        QTRY_VERIFY(m_viewport->hasFocus());
    }

    void enterAndEscapeHandTheKeyboardToTheView()
    {
        auto* dock = m_window->findChild<RunDock*>();
        dock->raise();
        auto* perFrame = dock->findChild<QSpinBox*>(QStringLiteral("stepsPerFrame"));
        QVERIFY(perFrame);
        QAction* start = action(QStringLiteral("Start"));
        QAction* pause = action(QStringLiteral("Pause"));
        QAction* step = action(QStringLiteral("Step"));
        QAction* navigate = action(QStringLiteral("Navigate"));
        QVERIFY(start && pause && step && navigate);
        QSignalSpy started(start, &QAction::triggered);
        QSignalSpy paused(pause, &QAction::triggered);
        QSignalSpy stepped(step, &QAction::triggered);

        // In the field the keys type: a digit is the field's, not the "2" tool's; Space and N
        // neither start nor step.
        QTest::mouseClick(perFrame, Qt::LeftButton);
        perFrame->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(perFrame->hasFocus());
        perFrame->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("2"));
        QCOMPARE(perFrame->text(), QStringLiteral("2"));
        QVERIFY(navigate->isChecked());
        type(Qt::Key_Space);
        type(Qt::Key_N);
        QCOMPARE(started.count(), 0);
        QCOMPARE(stepped.count(), 0);
        QVERIFY(perFrame->hasFocus());

        // Enter applies the value and hands the keyboard to the view: there Space starts, P
        // pauses and N steps.
        type(Qt::Key_Return);
        QCOMPARE(perFrame->value(), 2);
        QTRY_VERIFY(m_viewport->hasFocus());
        type(Qt::Key_Space);
        QCOMPARE(started.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(pause->isEnabled(), kWaitMs);
        // Space toggles: again it pauses, and once more it starts; P pauses too.
        type(Qt::Key_Space);
        QCOMPARE(paused.count(), 1);
        QCOMPARE(started.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled() && !pause->isEnabled(), kWaitMs);
        type(Qt::Key_Space);
        QCOMPARE(started.count(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(pause->isEnabled(), kWaitMs);
        type(Qt::Key_P);
        QCOMPARE(paused.count(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(step->isEnabled(), kWaitMs);
        type(Qt::Key_N);
        QCOMPARE(stepped.count(), 1);

        // Escape puts the value in use back (the typed one is dropped) and leaves too.
        perFrame->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(perFrame->hasFocus());
        perFrame->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("7"));
        type(Qt::Key_Escape);
        QTRY_VERIFY(m_viewport->hasFocus());
        QCOMPARE(perFrame->value(), 2);
        QCOMPARE(perFrame->text(), QStringLiteral("2"));
        type(Qt::Key_N);
        QCOMPARE(stepped.count(), 2);
    }

    void wheelOverAnUnfocusedFieldScrollsTheDock()
    {
        // A window short enough for the Run dock to scroll.
        const QSize size = m_window->size();
        m_window->resize(size.width(), 420);
        auto* dock = m_window->findChild<RunDock*>();
        dock->raise();
        auto* eps2 = dock->findChild<QDoubleSpinBox*>(QStringLiteral("eps2"));
        auto* area = dock->findChild<QScrollArea*>();
        QVERIFY(eps2 && area);
        QScrollBar* bar = area->verticalScrollBar();
        QTRY_VERIFY(bar->maximum() > 0);
        bar->setValue(0);
        m_viewport->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(m_viewport->hasFocus());
        const double before = eps2->value();
        const auto wheel = [](QWidget* w, int dy) {
            QWheelEvent e(QPointF(5, 5), w->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, dy), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &e);
        };

        // Unfocused: the value stays and the dock scrolls down.
        wheel(eps2, -120);
        QCOMPARE(eps2->value(), before);
        QVERIFY2(bar->value() > 0, "the dock did not scroll");
        QCOMPARE(eps2->focusPolicy(), Qt::StrongFocus); // a real wheel would not give it the keyboard
        // The View dock's colour mode, a combo box: the same.
        auto* viewDock = m_window->findChild<nbody::app::ViewDock*>();
        auto* mode = viewDock->findChild<QComboBox*>();
        QVERIFY(mode && mode->count() > 1);
        const int modeBefore = mode->currentIndex();
        wheel(mode, modeBefore == 0 ? -120 : 120);
        QCOMPARE(mode->currentIndex(), modeBefore);

        // Focused: the wheel steps the value (ε² doubles per step up).
        eps2->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(eps2->hasFocus());
        wheel(eps2, 120);
        QCOMPARE(eps2->value(), 2 * before);
        eps2->setValue(before);
        type(Qt::Key_Escape);
        QTRY_VERIFY(m_viewport->hasFocus());
        m_window->resize(size);
    }

    void zeroBodiesIsRefusedInWords()
    {
        QMenu* scenarios = nullptr;
        for (QMenu* m : m_window->findChildren<QMenu*>())
            if (m->title().remove(QLatin1Char('&')) == QLatin1String("New from scenario"))
                scenarios = m;
        QVERIFY(scenarios);
        QAction* plummer = nullptr;
        for (QAction* a : scenarios->actions())
            if (a->data().toString() == QLatin1String("plummer"))
                plummer = a;
        QVERIFY(plummer);
        bool checked = false;
        onNextModal([&](QWidget* dialog) {
            auto* bodies = dialog->findChild<QSpinBox*>(QStringLiteral("bodies"));
            auto* problem = dialog->findChild<QLabel*>(QStringLiteral("bodiesProblem"));
            auto* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
            QVERIFY(bodies && problem && ok);
            QVERIFY(ok->isEnabled());
            bodies->setFocus();
            bodies->selectAll();
            QTest::keyClicks(bodies, QStringLiteral("0"));
            QCOMPARE(bodies->text(), QStringLiteral("0")); // kept as typed, not the previous value
            QCOMPARE(bodies->value(), 0);
            QVERIFY(problem->isVisible());
            QVERIFY2(problem->text().contains(QLatin1String("at least 1")), qPrintable(problem->text()));
            QVERIFY(!ok->isEnabled());
            QTest::keyClick(bodies, Qt::Key_Return); // refused: the dialog stays
            QVERIFY(dialog->isVisible());
            QTest::keyClick(bodies, Qt::Key_Backspace);
            QTest::keyClicks(bodies, QStringLiteral("5"));
            QVERIFY(ok->isEnabled());
            QVERIFY(!problem->isVisible());
            checked = true;
        });
        plummer->trigger();
        QVERIFY(checked);
    }

    void mnemonicsAreUniquePerMenu()
    {
        // Every menu of the menu bar and every submenu: no letter twice, every item one.
        std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& path) {
            QMap<QChar, QString> used;
            for (QAction* a : menu->actions()) {
                if (a->isSeparator() || !a->isVisible())
                    continue;
                const QString text = a->menu() ? a->menu()->title() : a->text();
                const QChar m = nbody::app::mnemonic(text);
                QVERIFY2(!m.isNull(), qPrintable(path + QStringLiteral(": '%1' has no mnemonic").arg(text)));
                QVERIFY2(!used.contains(m), qPrintable(path + QStringLiteral(": '%1' and '%2' both on %3")
                                                                  .arg(used.value(m), text, QString(m))));
                used.insert(m, text);
                if (a->menu())
                    walk(a->menu(), path + QStringLiteral(" → ") + text);
            }
        };
        QMap<QChar, QString> top;
        int menus = 0;
        for (QAction* a : m_window->menuBar()->actions()) {
            if (!a->menu())
                continue;
            ++menus;
            const QChar m = nbody::app::mnemonic(a->text());
            QVERIFY2(!m.isNull() && !top.contains(m), qPrintable(a->text()));
            top.insert(m, a->text());
            walk(a->menu(), a->text());
        }
        QVERIFY(menus >= 7);
        QCOMPARE(nbody::app::mnemonic(QStringLiteral("Save sc&enario…")), QChar('e'));
        QCOMPARE(nbody::app::mnemonic(QStringLiteral("A && B &x")), QChar('x'));
    }

    void keyboardShortcutsDialogListsEveryAction()
    {
        QAction* help = action(QStringLiteral("Keyboard shortcuts"));
        QVERIFY(help);
        help->trigger();
        auto* dialog = m_window->findChild<nbody::app::ShortcutsDialog*>();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QTableWidget* table = dialog->table();
        QStringList shown;
        for (int r = 0; r < table->rowCount(); ++r)
            shown << table->item(r, 1)->text() + QStringLiteral(" | ") + table->item(r, 2)->text();
        // Every action of the window with a shortcut is in the table with its keys (made from
        // the actions: a new one shows up by itself).
        int actions = 0;
        for (QAction* a : m_window->findChildren<QAction*>()) {
            if (a->shortcut().isEmpty() || a->menu() || !a->isVisible())
                continue;
            bool inMenus = false;
            for (QObject* o : a->associatedObjects())
                inMenus = inMenus || qobject_cast<QMenu*>(o);
            if (!inMenus)
                continue;
            ++actions;
            QStringList keys; // every key of the action (Pause: P and Space)
            for (const QKeySequence& k : a->shortcuts())
                keys << k.toString(QKeySequence::NativeText);
            const QString row = keys.join(QStringLiteral(", ")) + QStringLiteral(" | ") + a->text().remove(QLatin1Char('&'));
            QVERIFY2(shown.contains(row), qPrintable(row + QStringLiteral(" missing from the table")));
        }
        QVERIFY(actions >= 15);
        for (const QString& key : {QStringLiteral("Space | Start"), QStringLiteral("P, Space | Pause"), QStringLiteral("N | Step")})
            QVERIFY2(shown.contains(key), qPrintable(key));
        // The tools' mouse gestures and the view's keys.
        QVERIFY(shown.filter(QStringLiteral("Navigate tool | Left-drag orbits")).size() == 1);
        QVERIFY(shown.filter(QStringLiteral("Delete region tool")).size() >= 1);
        for (const nbody::app::ShortcutRow& r : nbody::app::viewKeys())
            QVERIFY2(shown.contains(r.keys + QStringLiteral(" | ") + r.action), qPrintable(r.keys));
        dialog->close();
    }

    void viewKeysMoveTheView()
    {
        // Each key the table lists for the view changes the picture (Viewport::keyPressEvent).
        m_viewport->setFocus();
        const auto picture = [&] { return m_viewport->renderFrame(96, 72); };
        for (const nbody::app::ShortcutRow& r : nbody::app::viewKeys()) {
            if (r.keys == QLatin1String("Esc"))
                continue; // cancels a drag: nothing to see without one
            for (const QString& k : r.keys.split(QStringLiteral(", "))) {
                const QKeySequence seq(k, QKeySequence::PortableText);
                QVERIFY2(seq.count() == 1, qPrintable(k));
                const nbody::gl::Image before = picture();
                const QKeyCombination combo = seq[0];
                QTest::keyClick(m_viewport, combo.key(), combo.keyboardModifiers());
                const nbody::gl::Image after = picture();
                QVERIFY2(before.rgba != after.rgba, qPrintable(k + QStringLiteral(": the view did not change")));
            }
        }
    }

    void docsMatchTheTable()
    {
        const QString path = QStringLiteral(NBODY_SOURCE_DIR "/docs/shortcuts.md");
        const QString md = nbody::app::shortcutsMarkdown(m_window->shortcutRows());
        if (qEnvironmentVariableIsSet("NBODY_UPDATE_DOCS")) {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(md.toUtf8());
        }
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        QCOMPARE(QString::fromUtf8(f.readAll()), md);
    }

    void aboutListsEveryIntegrator()
    {
        QString text;
        onNextModal([&](QWidget* w) {
            if (auto* box = qobject_cast<QMessageBox*>(w))
                text = box->text();
        });
        action(QStringLiteral("About N-Body Sandbox"))->trigger();
        QVERIFY(!text.isEmpty());
        QVERIFY(nbody::integratorRegistry().size() >= 2);
        for (const nbody::IntegratorInfo& i : nbody::integratorRegistry())
            QVERIFY2(text.contains(qstr(i.name).toHtmlEscaped()), qPrintable(qstr(i.name) + QStringLiteral(" not in: ") + text));
    }

    void runDockShowsTheUnitOfG()
    {
        // G with the units of the system beside it.
        auto* dock = m_window->findChild<RunDock*>();
        QCOMPARE(dock->unitsOfGText(), QStringLiteral("N-body units"));
        QMenu* scenarios = nullptr;
        for (QMenu* m : m_window->findChildren<QMenu*>())
            if (m->title().remove(QLatin1Char('&')) == QLatin1String("New from scenario"))
                scenarios = m;
        for (QAction* a : scenarios->actions())
            if (a->data().toString() == QLatin1String("solar-system")) {
                onNextModal([](QWidget* dialog) {
                    if (auto* d = qobject_cast<QDialog*>(dialog))
                        d->accept();
                });
                a->trigger();
            }
        QTRY_COMPARE_WITH_TIMEOUT(dock->unitsOfGText(), QStringLiteral("AU³ M☉⁻¹ day⁻²"), kWaitMs);
        // A plain system again: N-body units.
        for (QAction* a : scenarios->actions())
            if (a->data().toString() == QLatin1String("plummer")) {
                onNextModal([](QWidget* dialog) {
                    if (auto* d = qobject_cast<QDialog*>(dialog))
                        d->accept();
                });
                a->trigger();
            }
        QTRY_COMPARE_WITH_TIMEOUT(dock->unitsOfGText(), QStringLiteral("N-body units"), kWaitMs);
    }

    void cleanupTestCase() { m_window.reset(); }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestShortcuts>(argc, argv);
}
#include "tst_shortcuts.moc"
