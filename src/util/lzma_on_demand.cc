// liblzma's three decoding functions, for elfutils (linked in statically:
// CMakeLists.txt), which calls them only to open a module compressed with
// xz or a MiniDebugInfo section (.gnu_debugdata, libdwfl). Linked in,
// liblzma ran its start-up code in every command: its CRC-64 chooses an
// implementation by two cpuid instructions before main(), and cpuid traps to
// the hypervisor on a VM (~6 us each here: 13 us of the ~0.9 ms of `covkit
// gcov` on one small file, bench/README.md). These definitions take the
// linker's place: the library is opened with dlopen at the first call, as
// libbz2 is (util/bzip2_on_demand.cc); the package's Depends name it
// (cmake/deb_package.cmake). Built as an object of every executable that
// links elfutils, tests included.
#include <lzma.h>

#include "util/functions_on_demand.h"

namespace {

struct LzmaFunctions {
  decltype(&lzma_auto_decoder) auto_decoder = nullptr;
  decltype(&lzma_code) code = nullptr;
  decltype(&lzma_end) end = nullptr;
};

// Opened once (a function-local static is initialised once, thread-safely);
// never closed. All three or none: a library without one of them is not
// liblzma.
const LzmaFunctions& lzma_functions() {
  static const LzmaFunctions functions = [] {
    LzmaFunctions f;
    covkit::util::resolve_functions_on_demand(
        COVKIT_LZMA_SONAME,
        std::pair{&f.auto_decoder, "lzma_auto_decoder"},
        std::pair{&f.code, "lzma_code"},
        std::pair{&f.end, "lzma_end"});
    return f;
  }();
  return functions;
}

}  // namespace

// Without liblzma, a decoder cannot start: LZMA_MEM_ERROR is what liblzma
// answers when it cannot set one up, and elfutils then treats the module as
// one it cannot read (as any damaged file). lzma_code and lzma_end are only
// called on a stream whose decoder started.
extern "C" lzma_ret lzma_auto_decoder(lzma_stream* strm, uint64_t memlimit, uint32_t flags) noexcept {
  const LzmaFunctions& f = lzma_functions();
  return f.auto_decoder ? f.auto_decoder(strm, memlimit, flags) : LZMA_MEM_ERROR;
}

extern "C" lzma_ret lzma_code(lzma_stream* strm, lzma_action action) noexcept {
  const LzmaFunctions& f = lzma_functions();
  return f.code ? f.code(strm, action) : LZMA_PROG_ERROR;
}

extern "C" void lzma_end(lzma_stream* strm) noexcept {
  const LzmaFunctions& f = lzma_functions();
  if (f.end) f.end(strm);
}
