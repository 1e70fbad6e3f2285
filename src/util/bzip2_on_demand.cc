// libbz2's three decompression functions, for elfutils (linked in
// statically: CMakeLists.txt), which calls them only to open a module
// compressed with bzip2 (libdwfl). Linked the usual way, libbz2 was a
// shared library every command loaded, mapped and relocated at start-up
// (bench/startup_vs_gcov.py: ~10 page faults of `covkit gcov` on one small
// file) for a file format covkit almost never meets. These definitions take
// the linker's place: the library is opened with dlopen at the first call.
// Not linked in (Debian forbids a copy of libbz2 inside a program: its
// security fixes would not reach it); the package's Depends name it
// (cmake/deb_package.cmake). Built as an object of every executable, tests
// included, so that nothing links libbz2 itself.
#include <bzlib.h>

#include "util/functions_on_demand.h"

namespace {

struct Bzip2Functions {
  decltype(&BZ2_bzDecompressInit) init = nullptr;
  decltype(&BZ2_bzDecompress) decompress = nullptr;
  decltype(&BZ2_bzDecompressEnd) end = nullptr;
};

// Opened once (a function-local static is initialised once, thread-safely);
// never closed. All three or none: a library without one of them is not
// libbz2.
const Bzip2Functions& bzip2_functions() {
  static const Bzip2Functions functions = [] {
    Bzip2Functions f;
    covkit::util::resolve_functions_on_demand(
        COVKIT_BZIP2_SONAME,
        std::pair{&f.init, "BZ2_bzDecompressInit"},
        std::pair{&f.decompress, "BZ2_bzDecompress"},
        std::pair{&f.end, "BZ2_bzDecompressEnd"});
    return f;
  }();
  return functions;
}

}  // namespace

// Without libbz2, a decompression cannot start: BZ_CONFIG_ERROR is what
// libbz2 itself answers when it cannot work here, and elfutils then treats
// the module as one it cannot read (as any damaged file).
extern "C" int BZ2_bzDecompressInit(bz_stream* stream, int verbosity, int small) {
  const Bzip2Functions& f = bzip2_functions();
  return f.init ? f.init(stream, verbosity, small) : BZ_CONFIG_ERROR;
}

extern "C" int BZ2_bzDecompress(bz_stream* stream) {
  const Bzip2Functions& f = bzip2_functions();
  return f.decompress ? f.decompress(stream) : BZ_CONFIG_ERROR;
}

extern "C" int BZ2_bzDecompressEnd(bz_stream* stream) {
  const Bzip2Functions& f = bzip2_functions();
  return f.end ? f.end(stream) : BZ_CONFIG_ERROR;
}
