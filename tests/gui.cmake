# tst_gui: runs the desktop app (nbody-sandbox) end to end with --steps/--capture/--quit and checks
# the screenshot and the exit codes, and tests the Kernel dock in-process on a real MainWindow
# (linked from nbody::app). Needs a display with desktop OpenGL (scripts/test.sh runs the
# `gui` label under xvfb-run; Qt's offscreen platform has no OpenGL here). Included from
# tests/CMakeLists.txt when NBODY_BUILD_APP is on.
nbody_add_test(NAME tst_gui SOURCES tst_gui.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 300)
target_compile_definitions(tst_gui PRIVATE NBODY_APP_PATH="$<TARGET_FILE:nbody-sandbox>")
add_dependencies(tst_gui nbody-sandbox)
set_target_properties(tst_gui PROPERTIES AUTOMOC ON)
# tst_validation_dock: the Validation dock and the report dialog running the real validation engine
# on CPU kernels (and a MainWindow validating its running system); label gui (needs a display).
# NBODY_SCREENSHOT_DIR=DIR saves the pictures of docs/images (validation-report.png, validation-dock.png).
nbody_add_test(NAME tst_validation_dock SOURCES tst_validation_dock.cpp LIBS nbody::app Qt6::Widgets LABELS gui
  TIMEOUT 300)
# tst_kernel_dock: the Kernel dock's share of the device's ceiling, read back from its label (a
# dock of its own, no OpenGL: runs on the offscreen platform too); label gui.
nbody_add_test(NAME tst_kernel_dock SOURCES tst_kernel_dock.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 60)
# tst_dock_text: a MainWindow at 1366 x 768: every dock tab's title whole,
# the Kernel, Run and Device docks and
# the status bar show their text whole (wrapped where needed), full reasons in tooltips, the
# Diagnostics charts, time axis included, inside the dock without scrolling; label gui.
# NBODY_SCREENSHOT_DIR=DIR saves laptop-*.png.
nbody_add_test(NAME tst_dock_text SOURCES tst_dock_text.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 120)
# The same checks at a device pixel ratio of 2 (QT_SCALE_FACTOR=2; the window stays 1366 x 768
# logical pixels on scripts/test.sh's 2880 x 1800 screen): text whole, charts' ticks not elided.
add_test(NAME tst_dock_text_dpr2 COMMAND tst_dock_text)
set_tests_properties(tst_dock_text_dpr2 PROPERTIES TIMEOUT 120 LABELS gui ENVIRONMENT QT_SCALE_FACTOR=2
                     RESOURCE_LOCK display)
# tst_shortcuts: keys typed into a dock field go to the field (no single-key shortcut fires),
# the wheel over an unfocused dock field scrolls the dock, the N box's 0, unique
# mnemonics, Help → Keyboard shortcuts (and docs/shortcuts.md), About's integrators, the Run
# dock's unit of G, on a real MainWindow; label gui.
nbody_add_test(NAME tst_shortcuts SOURCES tst_shortcuts.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 120)
# tst_autosave: the app's autosave and crash recovery in a real MainWindow (Autosave.h): written
# after the interval, atomic, the restore offer after a crash (a child process that dies holding
# the session marker) and not after a clean exit, Restore exact, Discard; label gui.
nbody_add_test(NAME tst_autosave SOURCES tst_autosave.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 300)
# tst_sandbox_gui: picking (a click selects a known body, the Selection dock's values, Esc and
# empty space clear, the selection through removals), Simulation → Reverse time and its disabled (B saying why)
# state with collisions on, the Add body tool's predicted path; New from scenario's prediction
# (the kernel that will run, measured at the N shown, tree-cpu offered, the question quoting the
# same numbers), a new system's own kernel and run settings, the status bar's steps/s apart
# from fps, a new system made beside the run with a progress bar and Cancel, and 2 000 003 bodies
# on a software renderer drawn as a subsample (the status bar's note, the frame time, the View
# dock's switch), Reset restoring the parameters the system was opened with (ε², G, dt typed
# into the Run dock, then Ctrl+R), and a typed change of ε² marked on the Diagnostics dock's
# charts; label gui.
# NBODY_SCREENSHOT_DIR=DIR saves sandbox-launch.png and sandbox-solar-system.png (docs/images),
# and diagnostics-rebased.png (the Diagnostics dock with a re-based E₀).
nbody_add_test(NAME tst_sandbox_gui SOURCES tst_sandbox_gui.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 180)
# tst_params: the parameter table as the one declaration of a parameter — a row declared by the
# test alone reaches `nbody run --help` (nbody::cli in-process), scenario files, CSV and HDF5
# snapshots, the Kernel dock and Simulation's validation; the built-in rows' messages; label gui
# (the Kernel dock; runs on the offscreen platform too).
nbody_add_test(NAME tst_params SOURCES tst_params.cpp LIBS nbody::app nbody::cli Qt6::Widgets LABELS gui TIMEOUT 120)
# tst_settings: what the app remembers (QSettings, app/AppSettings.h) across restarts of a real
# MainWindow — geometry and docks, View → Reset layout, File → Open Recent (missing files dropped
# with a notice), the View dock, the last scenario and kernel against the command line,
# --no-settings and scripted runs writing nothing; in a temporary XDG_CONFIG_HOME; label gui.
# NBODY_SCREENSHOT_DIR=DIR saves recent-files.png.
nbody_add_test(NAME tst_settings SOURCES tst_settings.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 300)
target_compile_definitions(tst_settings PRIVATE NBODY_APP_PATH="$<TARGET_FILE:nbody-sandbox>")
add_dependencies(tst_settings nbody-sandbox)
# tst_field_ranges: out-of-range values typed into the docks' number fields (Steps per frame,
# Evaluate, Point size, dt, ε², G, θ) and the Add body tool's mass (−1, 1e40, "-") stay in the
# field, refused with a red frame and a tooltip naming the allowed values, and nothing is
# applied; G = 1e40 with the cpu kernel gives the fp32 range warning (non-modal, the status bar)
# and a non-finite step names the fp32 range, on a real MainWindow; label gui.
nbody_add_test(NAME tst_field_ranges SOURCES tst_field_ranges.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 120)
# tst_energy_check: the app checks the run's energy as `nbody run` does, over the whole run: the
# cluster collision at five times its dt shows a non-modal warning (and the Diagnostics dock's
# line) saying what to do, Reset clears it, and at its own dt the passage of the cores stays
# within the tolerance, on a real MainWindow; label gui.
# NBODY_SCREENSHOT_DIR=DIR saves energy-warning.png.
nbody_add_test(NAME tst_energy_check SOURCES tst_energy_check.cpp LIBS nbody::app Qt6::Widgets LABELS gui TIMEOUT 600)
