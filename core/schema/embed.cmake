# Writes OUTPUT: a C++ file defining opscope::schema::kBuiltinDump as the bytes of INPUT.
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," content "${content}")
file(WRITE "${OUTPUT}"
     "namespace opscope::schema {\nstatic const char kBytes[] = {${content} 0};\n"
     "extern const char* const kBuiltinDump;\nconst char* const kBuiltinDump = kBytes;\n}\n")
