#include "blocks/block_trace_text.h"

#include <fmt/format.h>

#include <optional>
#include <unordered_map>

#include "sample/binary_image.h"
#include "sample/line_table.h"
#include "util/demangle.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::blocks {

namespace {

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// What a module's file says of its addresses; empty when it could not be read.
struct ModuleSymbols {
  std::optional<sample::BinaryImage> image;
  std::optional<sample::LineTable> lines;
};

ModuleSymbols read_module_symbols(const TraceModule& m, std::vector<std::string>& warnings) {
  ModuleSymbols s;
  if (m.path.empty() || m.path.front() != '/') {
    warnings.push_back(fmt::format("{}: no file to read its symbols from: addresses only", util::printable(m.path)));
    return s;
  }
  util::note_data_path(m.path);
  auto image = sample::load_binary_image(m.path);
  if (!image) {
    warnings.push_back(fmt::format("{}: {}: addresses only", util::printable(m.path), image.error().describe()));
    return s;
  }
  s.image = std::move(*image);
  if (auto lines = sample::load_line_table(m.path); lines && lines->has_debug_info) s.lines = std::move(*lines);
  return s;
}

// "module 0xADDR function+0xOFF file:line" of one block.
std::string block_label(const TraceModule& m, uint64_t address, const ModuleSymbols& s) {
  std::string label = fmt::format("{} {:#x}", util::printable(base_name(m.path)), address);
  if (!s.image) return label;
  if (const sample::FunctionSymbol* f = s.image->function_at(address))
    label += fmt::format(" {}+{:#x}", util::printable(util::demangle(f->name)), address - f->address);
  if (s.lines) {
    const sample::LineRange* best = nullptr;
    s.lines->for_each_overlapping(address, address + 1, [&](const sample::LineRange& r) {
      if (!best || (best->point && !r.point) || (best->point == r.point && r.lo >= best->lo)) best = &r;
    });
    if (best && best->file < s.lines->files.size())
      label += fmt::format(" {}:{}", util::printable(s.lines->files[best->file]), best->line);
  }
  return label;
}

}  // namespace

void write_block_trace_text(const BlockTrace& trace, const BlockTraceTextOptions& options,
                            const std::function<void(std::string_view)>& out, std::vector<std::string>& warnings) {
  uint64_t unwritten = 0, unknown = 0;
  for (uint32_t id : trace.events) {
    unwritten += id == 0;
    unknown += id != 0 && !trace.blocks.count(id);
  }
  out(fmt::format("block trace of pid {}: {} events kept of {}; dropped: {} past the bound of {}, {} of addresses "
                  "without a block id; {} unwritten at exit; {} of blocks in no module\n",
                  trace.pid, trace.events.size() - unwritten,
                  trace.events.size() + trace.dropped_past + trace.dropped_lost, trace.dropped_past, trace.bound,
                  trace.dropped_lost, unwritten, unknown));
  // Modules are read when an event first needs them.
  std::vector<std::optional<ModuleSymbols>> symbols(trace.modules.size());
  std::unordered_map<uint32_t, std::string> labels;
  auto label_of = [&](uint32_t id) -> const std::string& {
    auto [it, fresh] = labels.try_emplace(id);
    if (!fresh) return it->second;
    auto block = trace.blocks.find(id);
    if (id == 0) {
      it->second = "(unwritten: its thread had claimed the slot when the process exited)";
    } else if (block == trace.blocks.end()) {
      it->second = fmt::format("(block id {:#x}: in no module of the process)", id);
    } else {
      const TraceModule& m = trace.modules[block->second.module];
      std::optional<ModuleSymbols>& s = symbols[block->second.module];
      if (!s) s = options.addresses_only ? ModuleSymbols{} : read_module_symbols(m, warnings);
      it->second = block_label(m, block->second.address, *s);
    }
    return it->second;
  };
  std::string chunk;
  for (size_t i = 0; i < trace.events.size();) {
    size_t run = 1;
    while (i + run < trace.events.size() && trace.events[i + run] == trace.events[i]) ++run;
    chunk += fmt::format("{} {}", i, label_of(trace.events[i]));
    if (run > 1) chunk += fmt::format(" x{}", run);
    chunk += '\n';
    if (chunk.size() > (1 << 16)) {
      out(chunk);
      chunk.clear();
    }
    i += run;
  }
  if (trace.dropped_past)
    chunk += fmt::format("dropped {} events past the bound of {} (COVKIT_BLOCKS_TRACE raises it)\n",
                         trace.dropped_past, trace.bound);
  out(chunk);
}

}  // namespace covkit::blocks
