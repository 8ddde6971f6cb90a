# tree-sitter's Python grammar as a static library (target tree_sitter_python).
#
# Debian packages the tree-sitter runtime (libtree-sitter-dev) but not this grammar, and its
# generated parser.c is 3 MB, so it is not committed: the npm package's tarball is downloaded
# once (into OPSCOPE_DOWNLOAD_CACHE, shared by every build tree) and checked against its
# SHA-256. 0.23.6 is generated for ABI 14, which both Debian 12's runtime (0.20.7, ABI 13-14)
# and Debian 13's (0.22, ABI 13-14) load; 0.25 needs ABI 15.
set(OPSCOPE_TS_PYTHON_VERSION 0.23.6)
set(OPSCOPE_TS_PYTHON_SHA256 aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a)
set(OPSCOPE_DOWNLOAD_CACHE "$ENV{HOME}/.cache/opscope/downloads" CACHE PATH
    "Where build-time downloads (tree-sitter-python) are kept; put the tarball here offline")

set(_tarball "${OPSCOPE_DOWNLOAD_CACHE}/tree-sitter-python-${OPSCOPE_TS_PYTHON_VERSION}.tgz")
file(DOWNLOAD
  "https://registry.npmjs.org/tree-sitter-python/-/tree-sitter-python-${OPSCOPE_TS_PYTHON_VERSION}.tgz"
  "${_tarball}" EXPECTED_HASH SHA256=${OPSCOPE_TS_PYTHON_SHA256} STATUS _status TLS_VERIFY ON)
list(GET _status 0 _code)
if(NOT _code EQUAL 0)
  message(FATAL_ERROR "could not download tree-sitter-python ${OPSCOPE_TS_PYTHON_VERSION} from "
          "registry.npmjs.org (${_status}); without network, put the tarball (sha256 "
          "${OPSCOPE_TS_PYTHON_SHA256}) at ${_tarball}")
endif()

set(_src "${CMAKE_BINARY_DIR}/_deps/tree-sitter-python-${OPSCOPE_TS_PYTHON_VERSION}")
if(NOT EXISTS "${_src}/package/src/parser.c")
  file(ARCHIVE_EXTRACT INPUT "${_tarball}" DESTINATION "${_src}"
       PATTERNS package/src/parser.c package/src/scanner.c package/src/tree_sitter/*
                package/LICENSE)
endif()

enable_language(C)
add_library(tree_sitter_python STATIC ${_src}/package/src/parser.c ${_src}/package/src/scanner.c)
target_include_directories(tree_sitter_python PRIVATE ${_src}/package/src)
set_target_properties(tree_sitter_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
# Generated code: not ours to warn about.
target_compile_options(tree_sitter_python PRIVATE -w)
