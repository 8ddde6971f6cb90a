opscope_add_fuzzer(python_calls SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/python_calls_fuzzer.cpp
                   LIBS opscope_dialect_peft
                   SEEDS ${PROJECT_SOURCE_DIR}/tests/data/python_configs)
