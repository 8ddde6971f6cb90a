opscope_add_fuzzer(config_yaml SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/config_yaml_fuzzer.cpp LIBS opscope_features)
target_include_directories(config_yaml_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/features)
