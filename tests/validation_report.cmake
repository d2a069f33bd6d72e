# The validation report writers (issue 4). Included from tests/CMakeLists.txt.
# tst_validation_report: a hand-checked N = 3 report of the real engine (JSON fields and values),
# the HTML page opened in headless chromium (a screenshot checked for its badges; skips when
# chromium is not installed) and atomic writes. A CPU test: Qt Gui for QImage only, no label.
nbody_add_test(NAME tst_validation_report SOURCES tst_validation_report.cpp LIBS nbody::sim Qt6::Core Qt6::Gui)
