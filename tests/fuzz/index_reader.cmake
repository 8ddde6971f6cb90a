opscope_add_fuzzer(index_reader SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/index_reader_fuzzer.cpp
                   LIBS opscope_index opscope_format)
