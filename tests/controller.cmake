# tst_controller: the app's SimulationController (Qt Core only) driven through the frame protocol
# with a headless EGL context instead of a QOpenGLWidget — CUDA-GL interop where the EGL context
# is on a CUDA device, the host-upload path otherwise (Mesa llvmpipe). Qt Core + Qt Test only, so
# it runs on a GPU server without Qt Gui; GPU rows skip without a device, all rows without EGL.
# Included from tests/CMakeLists.txt.
nbody_add_test(NAME tst_controller
  SOURCES tst_controller.cpp
          ${PROJECT_SOURCE_DIR}/src/app/SimulationController.cpp
          ${PROJECT_SOURCE_DIR}/src/app/SimulationController.h # listed so AUTOMOC runs moc on it
  LIBS nbody::sim nbody::gl Qt6::Core
  LABELS gpu)
target_include_directories(tst_controller PRIVATE ${PROJECT_SOURCE_DIR}/src/app)
