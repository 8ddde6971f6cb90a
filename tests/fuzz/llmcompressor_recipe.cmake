opscope_add_fuzzer(llmcompressor_recipe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/llmcompressor_recipe_fuzzer.cpp
                   LIBS opscope_dialect_llmcompressor)
# The PEFT tests' hand-built Llama index: what the recipes are resolved against.
target_include_directories(llmcompressor_recipe_fuzzer PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/dialects/peft)
