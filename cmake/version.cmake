# covkit --version: the version (project(VERSION), the one number of the
# executable, the Debian package and the CMake package), the commit, and the
# optional parts and libraries built in. Included at the end of the top
# CMakeLists.txt, when everything has been found.
target_compile_definitions(covkit_cli PUBLIC COVKIT_VERSION="${PROJECT_VERSION}")

# One line each: "what version (what it gives)".
set(_parts "")
list(APPEND _parts "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}, ${CMAKE_BUILD_TYPE}")
if(MIMALLOC_LIBRARY AND NOT COVKIT_SANITIZE AND NOT COVKIT_FUZZ)
  list(APPEND _parts "mimalloc (allocator of the heavy commands, ${COVKIT_MIMALLOC_SONAME} loaded when first needed)")
else()
  list(APPEND _parts "the C library's malloc (no mimalloc)")
endif()
if(DEFINED LIBDW_libdw_VERSION)
  list(APPEND _parts "elfutils libdw ${LIBDW_libdw_VERSION} (symbols and lines of traced and sampled programs)")
endif()
if(DEFINED GVC_libgvc_VERSION)
  list(APPEND _parts "graphviz ${GVC_libgvc_VERSION} (call graphs as SVG and PNG, ${COVKIT_GVC_SONAME} loaded when first drawn)")
endif()
if(DEFINED zydis_VERSION)
  list(APPEND _parts "Zydis ${zydis_VERSION} (covkit sample's control-flow graphs, ${COVKIT_ZYDIS_SONAME} loaded when first needed)")
endif()
if(TARGET covkit-trace)
  list(APPEND _parts "libcovkit-trace (covkit trace record)")
endif()
if(TARGET covkit-sample)
  list(APPEND _parts "libcovkit-sample (covkit sample record)")
endif()
if(COVKIT_SANITIZE)
  list(APPEND _parts "AddressSanitizer + UBSan")
endif()
if(COVKIT_FUZZ)
  list(APPEND _parts "libFuzzer instrumentation")
endif()
list(JOIN _parts "\\n\"\n         \"" _joined)
set(COVKIT_BUILD_PARTS_C "\"${_joined}\"")
# The commit is filled in at build time: keep its placeholder.
set(COVKIT_COMMIT "@COVKIT_COMMIT@")
set(_template ${CMAKE_BINARY_DIR}/generated/build_info.cc.in)
set(_out ${CMAKE_BINARY_DIR}/generated/build_info.cc)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/src/cli/build_info.cc.in ${_template} @ONLY)
add_custom_target(covkit_build_info_file
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DTEMPLATE=${_template} -DOUT=${_out}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/build_info.cmake
  BYPRODUCTS ${_out}
  VERBATIM)
# Its own library: a new commit recompiles this one file.
add_library(covkit_build_info STATIC ${_out})
target_include_directories(covkit_build_info PRIVATE src)
target_compile_definitions(covkit_build_info PRIVATE COVKIT_VERSION="${PROJECT_VERSION}")
add_dependencies(covkit_build_info covkit_build_info_file)
target_link_libraries(covkit_cli PUBLIC covkit_build_info)
