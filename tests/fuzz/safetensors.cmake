# A Hugging Face checkpoint's .safetensors header and model.safetensors.index.json, as
# opscope-weights reads them from a user's folder.
opscope_add_fuzzer(safetensors SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/safetensors_fuzzer.cpp
                   LIBS opscope_safetensors)
