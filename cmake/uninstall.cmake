# `cmake --build build --target uninstall`: removes what the last `cmake
# --install build` (or `make install`) put in place, under the same DESTDIR
# when one is set, as listed in build/install_manifest.txt. Directories that
# covkit alone fills (a path component named covkit below them: LIBDIR/covkit,
# share/doc/covkit, share/covkit, LIBDIR/cmake/covkit) go once empty; shared
# ones (bin, share/man/man1) stay, as does anything covkit did not install.
#
#   cmake -DMANIFEST=build/install_manifest.txt -P cmake/uninstall.cmake
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "${MANIFEST}: no such file: nothing was installed from this build tree "
                      "(cmake --install writes it), or it was uninstalled already")
endif()
file(STRINGS "${MANIFEST}" _installed)
set(_destdir "$ENV{DESTDIR}")
set(_removed 0)
set(_gone 0)
set(_dirs)
set(_kept)
foreach(_file IN LISTS _installed)
  set(_path "${_destdir}${_file}")
  # IS_SYMLINK first: a link (covkit-gcov) whose target is gone is no EXISTS.
  if(IS_SYMLINK "${_path}" OR EXISTS "${_path}")
    if(IS_DIRECTORY "${_path}" AND NOT IS_SYMLINK "${_path}")
      message(WARNING "${_path}: a directory now, where covkit installed a file; left alone")
      continue()
    endif()
    file(REMOVE "${_path}")  # (says nothing when it cannot: checked below)
    if(IS_SYMLINK "${_path}" OR EXISTS "${_path}")
      list(APPEND _kept "${_path}")
      continue()
    endif()
    math(EXPR _removed "${_removed} + 1")
    get_filename_component(_dir "${_path}" DIRECTORY)
    list(APPEND _dirs "${_dir}")
  else()
    math(EXPR _gone "${_gone} + 1")
  endif()
endforeach()

# covkit's own directories, deepest first, each while empty.
list(REMOVE_DUPLICATES _dirs)
foreach(_dir IN LISTS _dirs)
  while(_dir MATCHES "/covkit(/|$)" AND IS_DIRECTORY "${_dir}" AND NOT IS_SYMLINK "${_dir}")
    file(GLOB _left LIST_DIRECTORIES true "${_dir}/*")  # (dot files too)
    if(_left)
      break()
    endif()
    file(REMOVE_RECURSE "${_dir}")  # empty: file(REMOVE) takes no directory
    get_filename_component(_dir "${_dir}" DIRECTORY)
  endwhile()
endforeach()
if(_kept)
  # The manifest stays, so that a rerun with the rights the install had
  # finishes the job.
  list(LENGTH _kept _n)
  list(GET _kept 0 _first)
  message(FATAL_ERROR "${_first}: cannot be removed (no write permission on its directory? uninstall as the user "
                      "who installed); ${_n} file(s) kept, ${_removed} removed, ${MANIFEST} kept for a rerun")
endif()
file(REMOVE "${MANIFEST}")
if(_gone GREATER 0)
  message(STATUS "${_gone} files listed in ${MANIFEST} were not there any more")
endif()
message(STATUS "Uninstalled ${_removed} files listed in ${MANIFEST}")
