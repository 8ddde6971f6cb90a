opscope_add_fuzzer(config_json SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/config_json_fuzzer.cpp LIBS opscope_features)
target_include_directories(config_json_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/features)
