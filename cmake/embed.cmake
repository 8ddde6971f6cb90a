# Writes OUTPUT: a C++ file defining `const char* const NAMESPACE::SYMBOL` as the bytes of INPUT
# followed by a NUL, for data a binary carries in itself (the built-in coreai-opt schema, the
# treemap page of `explain --html`).
#   cmake -DINPUT=file -DOUTPUT=file.cpp -DNAMESPACE=opscope::x -DSYMBOL=kName -P embed.cmake
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," content "${content}")
file(WRITE "${OUTPUT}"
     "namespace ${NAMESPACE} {\nstatic const char kBytes[] = {${content} 0};\n"
     "extern const char* const ${SYMBOL};\nconst char* const ${SYMBOL} = kBytes;\n}\n")
