# The Debian package: `cpack -G DEB` in the build tree (after the build)
# writes covkit_<version>_amd64.deb from the same install rules as `cmake
# --install` (cmake/install.cmake), under /usr. Its Depends are computed from
# the shared libraries the program and runtimes need (dpkg-shlibdeps), not
# written by hand; the version is project(VERSION), the one of `covkit
# --version` and of the CMake package. tests/install checks it with lintian.
set(COVKIT_PACKAGE_MAINTAINER "covkit developers <covkit@users.noreply.github.com>"
    CACHE STRING "The Debian package's maintainer (name <address>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME covkit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the covkit developers")
set(CPACK_PACKAGE_CONTACT "${COVKIT_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The compilers it serves, not needed to run: Recommends.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gcc")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "lcov, gcovr, graphviz")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "coverage, call tracing and profiles of C and C++ programs")
# Debian's long description (CPack puts the summary above it and a space
# before each line; "." is an empty line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "covkit tells C and C++ developers what their code does when it runs: which
lines and branches ran and how often, which functions call which and how
deep, where the time goes. It replaces the glue of gcov, gcovr, lcov,
gprof, uftrace and perf with one tool:
.
 * covkit gcov: a drop-in gcov (also installed as covkit-gcov for lcov,
   gcovr, CTest and Meson), byte-identical output, in parallel;
 * covkit report: lcov, Cobertura, SonarQube, Coveralls, JSON, HTML,
   Markdown and terminal reports, filters, gates, diff coverage;
 * covkit live: the counters of running programs, without a restart;
 * covkit trace and covkit gprof: call tracing, profiles, call graphs;
 * covkit sample: coverage of programs built without instrumentation.
.
Also a CMake package (find_package(covkit)), man pages and shell
completions.")

# The changelog Debian wants in share/doc (gzip -9n, as lintian checks).
string(TIMESTAMP COVKIT_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(packaging/debian/changelog.in ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
if(COVKIT_GZIP)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    COMMAND ${COVKIT_GZIP} -9nc ${CMAKE_BINARY_DIR}/packaging/changelog > ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog)
  add_custom_target(covkit_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
  install(FILES ${CMAKE_BINARY_DIR}/packaging/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

# Libraries loaded with dlopen (Graphviz, Zydis: only the commands that need
# them pay their start-up) are no NEEDED entries of covkit, so
# dpkg-shlibdeps cannot see them there: a stub linked with them gives their
# Depends the same way, at packaging time (cmake/deb_dlopen_depends.cmake.in).
add_executable(covkit_dlopen_deps cmake/dlopen_deps.c)
target_link_libraries(covkit_dlopen_deps PRIVATE PkgConfig::GVC Zydis::Zydis BZip2::BZip2 LibLZMA::LibLZMA)
target_link_options(covkit_dlopen_deps PRIVATE LINKER:--no-as-needed)
set_target_properties(covkit_dlopen_deps PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
set(COVKIT_DLOPEN_STUB ${CMAKE_BINARY_DIR}/covkit_dlopen_deps)
set(COVKIT_DLOPEN_SONAMES "${COVKIT_GVC_SONAME} ${COVKIT_ZYDIS_SONAME} ${COVKIT_BZIP2_SONAME} ${COVKIT_LZMA_SONAME}")
# The files of the dlopen'ed libraries, whose packages the Depends keep
# (libbz2 and liblzma: elfutils' bzip2 and xz, util/bzip2_on_demand and
# util/lzma_on_demand).
set(COVKIT_DLOPEN_FILES "")
set(_dlopen_files ${GVC_LINK_LIBRARIES} ${BZIP2_LIBRARIES} ${LIBLZMA_LIBRARIES})
# mimalloc, loaded when a heavy command asks for it (CMakeLists.txt).
if(COVKIT_MIMALLOC_SONAME)
  target_link_libraries(covkit_dlopen_deps PRIVATE ${MIMALLOC_LIBRARY})
  string(APPEND COVKIT_DLOPEN_SONAMES " ${COVKIT_MIMALLOC_SONAME}")
  list(APPEND _dlopen_files ${MIMALLOC_LIBRARY})
endif()
foreach(target Zydis::Zydis Zycore::Zycore Zycore)
  if(TARGET ${target})
    foreach(property IMPORTED_LOCATION_NONE IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION)
      get_target_property(location ${target} ${property})
      if(location)
        list(APPEND _dlopen_files ${location})
        break()
      endif()
    endforeach()
  endif()
endforeach()
foreach(path ${_dlopen_files})
  get_filename_component(real ${path} REALPATH)
  list(APPEND COVKIT_DLOPEN_FILES ${real})
  # Debian 12's libbz2 is registered by dpkg under /lib (merged /usr): the
  # /usr/lib path the linker found is known to dpkg by that name only.
  if(real MATCHES "^/usr(/lib/.*)$")
    list(APPEND COVKIT_DLOPEN_FILES ${CMAKE_MATCH_1})
  endif()
endforeach()
configure_file(cmake/deb_dlopen_depends.cmake.in ${CMAKE_BINARY_DIR}/packaging/cpack_project_config.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/packaging/cpack_project_config.cmake)

include(CPack)
