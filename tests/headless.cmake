# tst_headless: headless EGL rendering (Mesa llvmpipe or NVIDIA), PNG output and CUDA-GL interop.
# Qt Core + Qt Test only, so it runs on a GPU server; the interop case skips without a CUDA device
# that owns the EGL context. Included from tests/CMakeLists.txt.
nbody_add_test(NAME tst_headless SOURCES tst_headless.cpp LIBS nbody::gl Qt6::Core LABELS gpu)
# tst_interop_steps: a CUDA kernel's steps after the launch parameters changed under a running
# simulation (the tuner after creation, as nbody render), in interop buffers and owned ones, equal
# bit for bit to an explicit launch. Skips without a CUDA device.
nbody_add_test(NAME tst_interop_steps SOURCES tst_interop_steps.cpp LIBS nbody::gl nbody::sim Qt6::Core LABELS gpu)
