# `cmake --install build --prefix P` (and the Debian package, which installs
# the same way under /usr):
#
#   P/bin/covkit, P/bin/covkit-gcov -> covkit       (covkit-gcov is `covkit gcov`)
#   P/LIBDIR/covkit/libcovkit-trace.so, libcovkit-sample.so, libcovkit-trace.a
#   P/LIBDIR/covkit/libcovkit-blocks.so, libcovkit-blocks.a (-fsanitize-coverage's hooks)
#   P/LIBDIR/covkit/bin/gcov -> covkit               (first on PATH: covkit is the gcov)
#     (LIBDIR: lib/x86_64-linux-gnu on Debian, whatever the prefix)
#   P/LIBDIR/cmake/covkit/                           find_package(covkit)
#   P/share/covkit/gcov_stream/                      the firmware stream runtime (C source)
#   P/share/doc/covkit/                              README, manuals, copyright
#   P/share/man/man1, man5                           man pages
#   P/share/bash-completion/completions/covkit, P/share/zsh/.../_covkit,
#   P/share/fish/vendor_completions.d/covkit.fish
#
# LIBDIR is GNUInstallDirs' (lib, or lib/x86_64-linux-gnu under /usr on
# Debian). covkit finds its runtimes from its own executable's place
# (/proc/self/exe) by the relative path from BINDIR to LIBDIR/covkit, baked
# in below: an installed tree may be moved as a whole, and never needs the
# build tree.
include(GNUInstallDirs)

# The runtimes are architecture-specific: on a multiarch system (Debian) in
# the multiarch directory whatever the prefix (GNUInstallDirs uses it only
# under /usr), so that one layout serves `cmake --install` and the package
# (and no ldconfig runs for libraries that are preloaded by path).
if(CMAKE_LIBRARY_ARCHITECTURE AND CMAKE_INSTALL_LIBDIR STREQUAL "lib")
  set(COVKIT_PRIVATE_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE}/covkit)
else()
  set(COVKIT_PRIVATE_LIBDIR ${CMAKE_INSTALL_LIBDIR}/covkit)
endif()
file(RELATIVE_PATH COVKIT_RUNTIME_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${COVKIT_PRIVATE_LIBDIR})
target_compile_definitions(covkit_trace PRIVATE COVKIT_RUNTIME_FROM_BIN="${COVKIT_RUNTIME_FROM_BIN}")

install(TARGETS covkit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET covkit-trace)
  install(TARGETS covkit-trace covkit-sample LIBRARY DESTINATION ${COVKIT_PRIVATE_LIBDIR} NAMELINK_SKIP)
  install(TARGETS covkit-trace-static ARCHIVE DESTINATION ${COVKIT_PRIVATE_LIBDIR})
endif()
if(TARGET covkit-blocks)
  install(TARGETS covkit-blocks LIBRARY DESTINATION ${COVKIT_PRIVATE_LIBDIR} NAMELINK_SKIP)
  install(TARGETS covkit-blocks-static ARCHIVE DESTINATION ${COVKIT_PRIVATE_LIBDIR})
endif()

# Symbolic links, made in the build tree and installed as links.
set(_links ${CMAKE_BINARY_DIR}/install-links)
file(MAKE_DIRECTORY ${_links}/bin ${_links}/gcov-dir)
file(CREATE_LINK covkit ${_links}/bin/covkit-gcov SYMBOLIC)
file(RELATIVE_PATH _to_covkit ${CMAKE_INSTALL_PREFIX}/${COVKIT_PRIVATE_LIBDIR}/bin ${CMAKE_INSTALL_FULL_BINDIR}/covkit)
file(CREATE_LINK ${_to_covkit} ${_links}/gcov-dir/gcov SYMBOLIC)
install(FILES ${_links}/bin/covkit-gcov DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${_links}/gcov-dir/gcov DESTINATION ${COVKIT_PRIVATE_LIBDIR}/bin)

# The firmware stream runtime: compiled into the user's firmware, so shipped
# as source.
install(FILES src/runtime/gcov_stream/gcov_stream.c src/runtime/gcov_stream/gcov_stream.h
              src/runtime/gcov_stream/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/covkit/gcov_stream)

# Manuals as written, with their figures, and what Debian wants beside them.
file(GLOB _manuals ${CMAKE_CURRENT_SOURCE_DIR}/docs/covkit*.md ${CMAKE_CURRENT_SOURCE_DIR}/docs/*-format*.md)
install(FILES README.md ${_manuals} packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/images DESTINATION ${CMAKE_INSTALL_DOCDIR})

if(COVKIT_MAN_PAGES)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR} FILES_MATCHING PATTERN "*.gz")
endif()

# Completions where each shell looks for them. zsh: Debian's zsh reads
# /usr/share/zsh/vendor-completions, any zsh $prefix/share/zsh/site-functions
# for other prefixes (/usr/local); chosen when installing, since the package
# and `cmake --install --prefix` share this one configuration.
file(CREATE_LINK covkit ${_links}/covkit-gcov-completion SYMBOLIC)
install(FILES ${CMAKE_BINARY_DIR}/completions/covkit.bash RENAME covkit
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${_links}/covkit-gcov-completion RENAME covkit-gcov
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# (CPack installs the package under a staging directory ending in /usr.)
install(CODE [[
  if(CMAKE_INSTALL_PREFIX MATCHES "(^|/)usr/?$")
    set(COVKIT_ZSH_FUNCTIONS vendor-completions)
  else()
    set(COVKIT_ZSH_FUNCTIONS site-functions)
  endif()
]])
install(FILES ${CMAKE_BINARY_DIR}/completions/_covkit
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/\${COVKIT_ZSH_FUNCTIONS})
install(FILES ${CMAKE_BINARY_DIR}/completions/covkit.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
file(CREATE_LINK covkit.fish ${_links}/covkit-gcov.fish SYMBOLIC)
install(FILES ${_links}/covkit-gcov.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# What lintian is told on purpose (packaging/debian/lintian-overrides says why).
install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/lintian-overrides RENAME covkit
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides)

# The CMake package (packaging/cmake/): find_package(covkit) in a project.
include(CMakePackageConfigHelpers)
set(COVKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/covkit)
configure_package_config_file(packaging/cmake/covkitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake-package/covkitConfig.cmake
  INSTALL_DESTINATION ${COVKIT_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR COVKIT_PRIVATE_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake-package/covkitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake-package/covkitConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake-package/covkitConfigVersion.cmake
              packaging/cmake/covkitFunctions.cmake packaging/cmake/covkitCoverageRun.cmake
        DESTINATION ${COVKIT_CMAKE_DIR})

# `cmake --build build --target uninstall` (cmake/uninstall.cmake): what the
# last install from this build tree put in place, removed again.
add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -DMANIFEST=${CMAKE_BINARY_DIR}/install_manifest.txt -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/uninstall.cmake
  COMMENT "Removing the files of the last install from this build tree" VERBATIM)
