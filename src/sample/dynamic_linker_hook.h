#pragma once
// The dynamic linker calls _dl_debug_state (r_debug.r_brk, the debuggers'
// hook) after every change to the list of loaded objects: once the
// libraries of the start-up are mapped, and around each dlopen and dlclose.
// A breakpoint there tells the recorder when to read the maps again. Found
// at the exec stop, before the linker has run: the linker's base from the
// auxiliary vector (AT_BASE) and its symbol.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "live/process_maps.h"
#include "util/expected.h"

namespace covkit::sample {

// The values of /proc/PID/auxv's entry `type`.
std::optional<uint64_t> auxv_value(std::string_view auxv, uint64_t type);

// r_brk in the process, or nullopt when the program has no dynamic linker
// (static). An error says why the hook cannot be found.
Expected<std::optional<uint64_t>> find_r_brk(pid_t pid, const std::vector<live::Mapping>& maps);

// A hit on r_brk is emulated as a return (no single step, so no window
// where another thread could pass it unseen): only valid when the function
// is nothing but a return, as glibc's is.
bool is_plain_return(std::span<const uint8_t> code);

}  // namespace covkit::sample
