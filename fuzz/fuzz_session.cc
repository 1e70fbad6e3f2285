// Fuzzes the whole `covkit gcov` pipeline on a notes/data pair: reading,
// merging into a GcovSession, grouping and solving, placing blocks on lines,
// the per-line cycle counts, and the text and JSON renderers; for clang's
// notes, llvm-cov's counting rules (model/llvm_gcov.h) too.
//
// Input: [flags:1][notes length:4, little endian][notes][data]. The flags
// choose the options (see below). load_object() reads files, so this target
// does what it does on the two halves in memory instead; source names from
// the notes are confined to a private directory (holding a few real source
// files), so a hostile name can never make the renderer read /dev/zero.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "format/gcda_reader.h"
#include "format/gcno_reader.h"
#include "model/gcov_session.h"
#include "model/llvm_gcov.h"
#include "report/gcov/gcov_json.h"
#include "report/gcov/gcov_messages.h"
#include "report/gcov/gcov_text.h"
#include "report/json_writer.h"

using namespace covkit;

namespace {

enum Flags : uint8_t {
  kJson = 1,
  kBranches = 2,
  kAllBlocks = 4,
  kCountsHuman = 8,
  kUnconditionalVerbose = 16,
  kColorsHotness = 32,
  kNoDataFile = 64,
  kDemangleSummaries = 128,
};

std::string safe_name(const std::string& name) {
  // Absolute names, climbs out of the directory and device-like names are
  // replaced by a relative name that keeps them distinct.
  if (name.empty()) return name;
  if (name[0] == '/' || name.find("..") != std::string::npos || name.find("dev") != std::string::npos ||
      name.find("proc") != std::string::npos || name.find("sys") != std::string::npos)
    return "sanitized_" + std::to_string(std::hash<std::string>{}(name) % 97) + ".c";
  return name;
}

// With COVKIT_FUZZ_SKIP_HUGE_LINES=1 in the environment, inputs with line
// numbers or function line ranges beyond 2^20 are skipped: covkit allocates
// a line table as large as the largest line (a known bug, reported with
// tests/unit/gcov_session_test.cc HugeLineNumberDoesNotExhaustMemory), which
// otherwise dominates every run. Unset, the fuzzer finds that bug at once.
bool has_huge_lines(const format::NotesFile& nf) {
  constexpr uint32_t kLimit = 1u << 20;
  for (const auto& f : nf.functions) {
    if (f.start_line > kLimit || (f.end_line >= f.start_line && f.end_line - f.start_line > kLimit)) return true;
    for (uint32_t ln : f.line_list)
      if (ln > kLimit) return true;
  }
  return false;
}

const bool skip_huge_lines = [] {
  const char* e = std::getenv("COVKIT_FUZZ_SKIP_HUGE_LINES");
  return e && *e == '1';
}();

// clang's notes ("408*") are also counted by llvm-cov's rules, as covkit
// gcov and covkit report count them.
void llvm_rules(const format::NotesFile& nf, std::span<const uint8_t> counts, uint8_t flags) {
  model::LlvmObject obj = model::llvm_object_from_notes(nf);
  if (!(flags & kNoDataFile)) {
    auto dres = format::read_data(counts);
    if (dres) model::llvm_add_counts(obj, nf, *dres);
  }
  std::vector<model::LlvmSummary> summaries;
  std::vector<model::LlvmSource> sources =
      model::llvm_collect_functions(obj, flags & kDemangleSummaries, (flags & kDemangleSummaries) ? &summaries : nullptr);
  for (model::LlvmSource& si : sources) model::llvm_collect_source(obj, si, si.filename, flags & kBranches);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/covkit-fuzz-session-XXXXXX";
  const char* dir = ::mkdtemp(tmpl);
  if (!dir || ::chdir(dir) != 0) std::abort();
  // Sources the seeds name (p.c, h.h) and a few more, with long and odd lines.
  std::string body;
  for (int i = 1; i <= 40; ++i) body += "line " + std::to_string(i) + " of the source\n";
  for (const char* n : {"p.c", "h.h", "f.c", "dense.c", "sanitized_0.c"}) std::ofstream(n) << body;
  std::ofstream("nul.c", std::ios::binary) << std::string("a\0b\nno newline at end", 21);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const uint8_t flags = data[0];
  uint32_t notes_len;
  std::memcpy(&notes_len, data + 1, 4);
  const size_t rest = size - 5;
  if (notes_len > rest) notes_len = uint32_t(rest);
  std::span<const uint8_t> notes(data + 5, notes_len);
  std::span<const uint8_t> counts(data + 5 + notes_len, rest - notes_len);

  // What load_object() does, from memory.
  model::LoadedObject obj;
  obj.notes_name = "fuzz.gcno";
  obj.data_name = "fuzz.gcda";
  obj.notes_opened = true;
  obj.notes_mtime = 4102444800;  // 2100: sources are never newer
  auto nres = format::read_notes(notes);
  if (auto* hdr = nres ? nullptr : &nres.error()) {
    obj.notes = *hdr;
  } else {
    auto& nf = *nres;
    if (skip_huge_lines && has_huge_lines(nf)) return 0;
    std::unordered_map<std::string, uint32_t> local;
    auto source_of = [&](const std::string& name) -> uint32_t {
      std::string safe = safe_name(name);
      auto [it, fresh] = local.emplace(safe, uint32_t(obj.local_names.size()));
      if (fresh) obj.local_names.push_back(safe);
      return it->second;
    };
    if (nf.version.is_gcc48()) llvm_rules(nf, counts, flags);
    // A location names its file by an index into nf.files (model/gcov_session.cc).
    auto location_source_of = [&](uint32_t file) { return source_of(nf.files[file]); };
    for (const auto& f : nf.functions) obj.functions.emplace_back().fn = model::build_function(f, source_of, location_source_of);
    nf.functions.clear();
    obj.notes = std::move(nf);
  }
  if (!(flags & kNoDataFile)) {
    obj.data_opened = true;
    auto dres = format::read_data(counts);
    if (auto* hdr = dres ? nullptr : &dres.error())
      obj.data = *hdr;
    else
      obj.data = std::move(*dres);
  }

  const bool json = flags & kJson;
  const bool branches = flags & kBranches;
  model::GcovSession session(model::SessionOptions{"", branches, json, bool(flags & kDemangleSummaries), 1});
  session.add_object(std::move(obj), "fuzz.gcda");
  session.process_all_functions();
  std::vector<std::pair<std::string, model::CoverageSummary>> summaries;
  session.add_line_counts((flags & kDemangleSummaries) ? &summaries : nullptr);
  for (uint32_t s = 0; s < session.source_count(); ++s) session.accumulate(s);

  report::TextOptions topts;
  topts.all_blocks = flags & kAllBlocks;
  topts.branches = branches;
  topts.counts = topts.human = flags & kCountsHuman;
  topts.unconditional = topts.verbose = flags & kUnconditionalVerbose;
  topts.colors = topts.hotness = flags & kColorsHotness;
  report::JsonWriter doc;
  report::begin_json_document(doc, session);
  for (uint32_t s = 0; s < session.source_count(); ++s) {
    if (json) {
      report::JsonWriter w;
      report::write_json_source(w, session, s, report::JsonOptions{branches});
      doc.raw_value(w.text());
    } else if (session.coverage(s).coverage.lines) {
      auto r = report::render_gcov_text(session, s, topts);
      (void)r;
    }
  }
  report::end_json_document(doc, session, "fuzz.gcda");
  // Every diagnostic must word as one line (gcov's messages carry names
  // from the hostile files).
  report::GcovMessages words;
  for (const model::Diagnostic& d : session.take_diagnostics()) {
    const std::string text = words.render(d);
    if (!text.empty() && text.back() != '\n') std::abort();
  }
  session.release();
  return 0;
}
