# lsp_server.h, the server it drives, includes the dialect interface its measurements and
# rewrites are made of.
opscope_add_fuzzer(protocol SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/protocol_fuzzer.cpp
                   LIBS opscope_protocol opscope_lsp opscope_trust opscope_dialect_interface
                        Boost::headers)
target_include_directories(protocol_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/server/lsp/src)
