# Links libzip itself to pack non-zip inputs into an archive (see the harness).
opscope_add_fuzzer(archive SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/archive_fuzzer.cpp
                   LIBS opscope_inspect PkgConfig::LIBZIP)
