# tst_headless: headless EGL rendering (Mesa llvmpipe or NVIDIA), PNG output and CUDA-GL interop.
# Qt Core + Qt Test only, so it runs on a GPU server; the interop case skips without a CUDA device
# that owns the EGL context. Included from tests/CMakeLists.txt.
nbody_add_test(NAME tst_headless SOURCES tst_headless.cpp LIBS nbody::gl Qt6::Core LABELS gpu)
