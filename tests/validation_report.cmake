# The validation report writers. Included from tests/CMakeLists.txt.
# tst_validation_report: a hand-checked N = 3 report of the real engine (JSON fields and values),
# the HTML page opened in headless chromium (a screenshot checked for its badges; skips when
# chromium is not installed) and atomic writes. A CPU test that links Qt Gui for QImage, so it is
# built only where Qt Gui is found (with the app; not in the GPU build, which has Qt Core only).
if(TARGET Qt6::Gui)
  nbody_add_test(NAME tst_validation_report SOURCES tst_validation_report.cpp LIBS nbody::sim Qt6::Core Qt6::Gui)
endif()
