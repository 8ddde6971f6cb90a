opscope_add_fuzzer(config_python SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/config_python_fuzzer.cpp LIBS opscope_features
                  SEEDS ${PROJECT_SOURCE_DIR}/tests/data/python_configs)
target_include_directories(config_python_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/features)
