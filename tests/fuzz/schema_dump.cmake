opscope_add_fuzzer(schema_dump SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/schema_dump_fuzzer.cpp
                   LIBS opscope_schema)
