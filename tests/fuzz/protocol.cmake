# lsp_server.h, the server it drives, includes the weight-error state of coreai-opt's features.
opscope_add_fuzzer(protocol SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/protocol_fuzzer.cpp
                   LIBS opscope_protocol opscope_lsp opscope_trust opscope_propose opscope_features
                        Boost::headers)
target_include_directories(protocol_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/server/lsp/src)
