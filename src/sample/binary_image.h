#pragma once
// One ELF module as the analysis needs it: its build-id, the program headers
// that turn file offsets into addresses, the bytes at any loaded address,
// its functions (symbols with a size; in a stripped file the .eh_frame
// FDEs no symbol covers, named fn_<hex>) and the names behind its PLT stubs
// and GOT slots, so that a call to exit@plt is known to be a call to exit.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sample/function_symbol.h"
#include "util/expected.h"
#include "util/file_io.h"

namespace covkit::sample {

struct LoadSegment {
  uint64_t vaddr = 0, offset = 0, file_size = 0, mem_size = 0;
  bool executable = false;
};

class BinaryImage {
 public:
  const std::string& path() const { return path_; }
  const std::string& build_id() const { return build_id_; }  // lower-case hex, empty when absent
  // The whole file as read (what every answer of this image comes from).
  std::span<const uint8_t> file_bytes() const { return data_->bytes(); }
  bool position_independent() const { return pie_; }         // ET_DYN
  // Whether the file has a line table of its own (.debug_line).
  bool has_line_table() const { return line_table_; }
  const std::vector<FunctionSymbol>& functions() const { return functions_; }  // sorted by address
  // Why functions() is empty ("no function symbols (stripped?) and no
  // .eh_frame: functions unknown"), else empty.
  const std::string& symbols_problem() const { return symbols_problem_; }
  // When functions came from .eh_frame (a stripped file), one line saying
  // so, for a warning; else empty.
  const std::string& functions_note() const { return functions_note_; }

  // The file-relative virtual address of a file offset (through PT_LOAD).
  std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;
  // `size` bytes at `vaddr` from the file (empty when not all of them are in it).
  std::span<const uint8_t> bytes_at(uint64_t vaddr, uint64_t size) const;
  bool is_executable(uint64_t vaddr) const;
  const std::vector<LoadSegment>& segments() const { return segments_; }

  // The function whose [address, address+size) holds vaddr; nullptr if none.
  const FunctionSymbol* function_at(uint64_t vaddr) const;
  // The function starting exactly at vaddr; nullptr if none.
  const FunctionSymbol* function_starting_at(uint64_t vaddr) const;
  // What a direct call or jump to vaddr calls: a function's name, or for a
  // PLT stub the imported symbol's name (as "exit"); empty when unknown.
  std::string callee_name(uint64_t vaddr) const;
  // The imported symbol whose GOT slot is at vaddr (call *slot(%rip) with -fno-plt).
  std::string got_slot_name(uint64_t vaddr) const;
  // The 8-byte pointer stored at vaddr once the dynamic linker relocated
  // it: a relative relocation's addend (a PIE's computed-goto table holds
  // zeros in the file), else the file's bytes.
  std::optional<uint64_t> pointer_at(uint64_t vaddr) const;
  // The end of the data object (a symbol with a size) that starts at vaddr.
  std::optional<uint64_t> object_end(uint64_t vaddr) const;

 private:
  friend Expected<BinaryImage> load_binary_image(const std::string& path);
  std::string path_, build_id_, symbols_problem_, functions_note_;
  bool pie_ = false, line_table_ = false;
  std::shared_ptr<util::FileData> data_;
  std::vector<LoadSegment> segments_;
  std::vector<FunctionSymbol> functions_;
  std::map<uint64_t, std::string> plt_names_;  // stub address -> imported name
  std::map<uint64_t, std::string> got_names_;  // GOT slot -> imported name
  std::map<uint64_t, uint64_t> relocated_;     // slot -> value after relative relocation
  std::map<uint64_t, uint64_t> objects_;       // data object start -> end
};

// Errors name what is wrong in one line ("not an ELF file", "not x86-64");
// the caller adds the path. A stripped file loads, with functions_note set
// (functions from .eh_frame) or symbols_problem (none found).
Expected<BinaryImage> load_binary_image(const std::string& path);

}  // namespace covkit::sample
