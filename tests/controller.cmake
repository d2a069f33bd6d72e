# tst_controller: the app's SimulationController (Qt Core only) driven through the frame protocol
# with a headless EGL context instead of a QOpenGLWidget — CUDA-GL interop where the EGL context
# is on a CUDA device, the host-upload path otherwise (Mesa llvmpipe). Qt Core + Qt Test only, so
# it runs on a GPU server without Qt Gui; GPU rows skip without a device, all rows without EGL.
# Included from tests/CMakeLists.txt.
nbody_add_test(NAME tst_controller
  SOURCES tst_controller.cpp
          FrameLoop.h # listed so AUTOMOC runs moc on it
  LIBS nbody::controller Qt6::Core
  LABELS gpu)
# tst_gpu_faults: GPU failures: no device, CUDA-GL interop refused
# (NBODY_FORCE_INTEROP_FAILURE), a CUDA fault during a run (the test-only `faulty-test` row) and
# the watchdog's sliced force passes. Tests that set a switch or lose the CUDA context re-run the
# executable for themselves alone (a child process each), so one run of it covers all of them.
nbody_add_test(NAME tst_gpu_faults
  SOURCES tst_gpu_faults.cpp
          FrameLoop.h # listed so AUTOMOC runs moc on it
  LIBS nbody::controller Qt6::Core
  LABELS gpu
  TIMEOUT 600)
