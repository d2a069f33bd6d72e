# Device information. Included from tests/CMakeLists.txt.
# tst_machine_info: the rows of sim/base/MachineInfo.h against queryCuda() and OpenMP (Qt Core only;
# label gpu: on the GPU machine it checks every device's rows).
nbody_add_test(NAME tst_machine_info SOURCES tst_machine_info.cpp LIBS nbody::sim Qt6::Core LABELS gpu)
# The default build's architecture list (CMakeLists.txt), with ',' for CMake's ';'.
string(REPLACE ";" "," _nbody_all_archs "${NBODY_CUDA_ALL_ARCHITECTURES}")
target_compile_definitions(tst_machine_info PRIVATE NBODY_ALL_CUDA_ARCHITECTURES="${_nbody_all_archs}")
# tst_device_dock: the Device dock and Help → About this machine on a real MainWindow: the OpenGL
# rows are the view's context's strings, the interop row says why it is not in use, Copy gives
# the text form. Needs a display (xvfb-run); label gui. NBODY_SCREENSHOT_DIR=dir saves
# device-dock.png there (docs/images/device-dock.png).
if(NBODY_BUILD_APP)
  nbody_add_test(NAME tst_device_dock SOURCES tst_device_dock.cpp LIBS nbody::app Qt6::Widgets Qt6::OpenGL
    LABELS gui TIMEOUT 120)
endif()
