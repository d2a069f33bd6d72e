# tst_capture: exported frames (size, colours, PNG and JPEG), image sequences, MP4 through ffmpeg
# and the failure paths of the writers. Qt Core + Qt Test only (EGL), so it runs on the GPU server;
# the video rows skip without ffmpeg/ffprobe. Included from tests/CMakeLists.txt.
nbody_add_test(NAME tst_capture SOURCES tst_capture.cpp LIBS nbody::gl Qt6::Core LABELS gpu TIMEOUT 120)
