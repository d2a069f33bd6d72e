# nbody::controller — the app's SimulationController (one class in four files: the state, the
# systems it makes and loads, the commands, the frame protocol). Qt Core only, so the tests that
# drive it with a headless EGL context (tst_controller, tst_gpu_faults) build it on a GPU server
# without Qt Gui; a library of its own so that the app and those tests compile it once. Included
# from CMakeLists.txt when the app or the tests are built.
add_library(nbody_controller STATIC
  ${CMAKE_CURRENT_LIST_DIR}/SimulationController.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SimulationController.h
  ${CMAKE_CURRENT_LIST_DIR}/ControllerSystems.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ControllerCommands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ControllerFrame.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FrameProtocol.h
  ${CMAKE_CURRENT_LIST_DIR}/StepTimeAverage.h)
add_library(nbody::controller ALIAS nbody_controller)
set_target_properties(nbody_controller PROPERTIES AUTOMOC ON)
target_include_directories(nbody_controller PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(nbody_controller PUBLIC nbody::sim nbody::gl Qt6::Core)
nbody_set_warnings(nbody_controller)
