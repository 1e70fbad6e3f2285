#include "model/stream_unpack.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "format/gcov_tags.h"
#include "model/data_merge.h"
#include "model/stream_file_names.h"
#include "util/file_io.h"
#include "util/printable.h"
#include "util/staged_tree.h"

namespace covkit::model {

namespace {

using format::DataFile;
using format::DataRecord;
using format::StreamEntry;

using Dump = std::vector<const StreamEntry*>;

// A new dump starts where a file name comes again: the target walks all of
// its objects each time it dumps.
std::vector<Dump> split_dumps(const format::GcovStream& stream) {
  std::vector<Dump> dumps;
  std::set<std::string> names;
  for (const StreamEntry& e : stream.entries) {
    if (dumps.empty() || !names.insert(e.filename).second) {
      dumps.emplace_back();
      names = {e.filename};
    }
    dumps.back().push_back(&e);
  }
  return dumps;
}

// libgcov's run_max: the largest arc counter of the whole program in this
// run (gcov_type is signed; it starts at 0).
int64_t run_max(const Dump& dump) {
  int64_t max = 0;
  for (const StreamEntry* e : dump)
    for (const DataRecord& rec : e->data.records)
      if (rec.kind == DataRecord::Kind::kCounters && rec.tag == format::kTagArcCounters)
        for (int64_t c : rec.counters) max = std::max(max, c);
  return max;
}

// The file as libgcov writes it after one run: the object summary of that
// run right after the header. A stream that brings its own keeps it.
DataFile with_summary(const DataFile& streamed, int64_t max) {
  DataFile file = streamed;
  const bool has_summary = std::any_of(file.records.begin(), file.records.end(),
                                       [](const DataRecord& r) { return r.kind == DataRecord::Kind::kSummary; });
  if (has_summary) return file;
  DataRecord summary;
  summary.kind = DataRecord::Kind::kSummary;
  summary.tag = format::kTagObjectSummary;
  summary.length = 8;
  summary.runs = 1;
  summary.sum_max = uint32_t(uint64_t(max));  // libgcov stores the low word
  file.records.insert(file.records.begin(), std::move(summary));
  return file;
}

std::string shown(const std::string& out, const std::string& relative) {
  return util::printable(out + "/" + relative);
}

// The file already in `out` at `relative`, if any, read through the tree's
// descriptor: a symbolic link anywhere below `out` is refused (its content
// would come from elsewhere and the write would replace it).
Expected<std::optional<DataFile>> existing_file(const util::StagedTree& tree, const std::string& out,
                                                const std::string& relative) {
  auto data = tree.read_old(relative);
  if (!data) return std::move(data).error();
  if (!*data) return std::optional<DataFile>();
  auto file = format::read_data({reinterpret_cast<const uint8_t*>((*data)->data()), (*data)->size()});
  if (!file) return Error(fmt::format("{}: {}", shown(out, relative), file.error().message));
  if (file->error) return Error(fmt::format("{}: {}", shown(out, relative), file->error->describe()));
  return std::optional<DataFile>(std::move(*file));
}

struct Pending {
  DataFile data;
  size_t dumps = 0;
  bool added_to_existing = false;
};

Error entry_error(const StreamEntry& e, const std::string& what) {
  return Error(e.offset, fmt::format("{}: {}", util::printable(e.filename), what));
}

}  // namespace

namespace {

Expected<UnpackResult> unpack_into(const format::GcovStream& stream, const std::string& out,
                                   const UnpackOptions& options, const util::StagedTree& tree) {
  std::map<std::string, Pending> files;
  const std::vector<Dump> dumps = split_dumps(stream);
  for (size_t d = 0; d < dumps.size(); ++d) {
    const int64_t max = run_max(dumps[d]);
    std::map<std::string, const StreamEntry*> in_this_dump;
    for (const StreamEntry* e : dumps[d]) {
      auto relative = stream_file_relative_path(e->filename, options.strip);
      if (!relative) return entry_error(*e, relative.error().message);
      if (auto [it, fresh] = in_this_dump.emplace(*relative, e); !fresh)
        return entry_error(*e, fmt::format("goes to {} as {} does (a smaller --strip keeps them apart)",
                                           shown(out, *relative), util::printable(it->second->filename)));
      // A dump is one run of the program: a summary the stream brings that
      // counts none is damaged (the file would say it never ran).
      for (const DataRecord& r : e->data.records)
        if (r.kind == DataRecord::Kind::kSummary && r.runs == 0)
          return entry_error(*e, fmt::format("dump {}: its object summary counts 0 runs (a dump is one run)", d + 1));
      DataFile run = with_summary(e->data, max);
      auto it = files.find(*relative);
      if (it == files.end()) {
        auto existing = existing_file(tree, out, *relative);
        if (!existing) return std::move(existing).error();
        Pending p;
        if (*existing) {
          p.data = std::move(**existing);
          p.added_to_existing = true;
        }
        it = files.emplace(*relative, std::move(p)).first;
        if (!it->second.added_to_existing) {
          it->second.data = std::move(run);
          it->second.dumps = 1;
          continue;
        }
      }
      auto sum = merge_data(it->second.data, run);
      if (!sum)
        return entry_error(*e, fmt::format("dump {} cannot be added to {}: {}", d + 1,
                                           it->second.dumps ? "the earlier dumps" : shown(out, *relative),
                                           sum.error().message));
      it->second.data = std::move(*sum);
      ++it->second.dumps;
    }
  }
  UnpackResult result;
  result.dumps = dumps.size();
  for (auto& [relative, p] : files) {
    std::vector<uint8_t> bytes = format::write_data(p.data);
    result.files.push_back({relative, std::string(bytes.begin(), bytes.end()), p.dumps, p.added_to_existing});
  }
  return result;
}

}  // namespace

Expected<UnpackResult> unpack_stream(const format::GcovStream& stream, const std::string& out,
                                     const UnpackOptions& options) {
  auto tree = util::StagedTree::open(out);
  if (!tree) return tree.error();
  return unpack_into(stream, out, options, *tree);
}

Expected<UnpackResult> write_unpacked_stream(const format::GcovStream& stream, const std::string& out,
                                             const UnpackOptions& options) {
  // `out` is found and held first (no link of another user followed): the
  // files already there are read through it, the new tree staged beside it.
  auto staged = util::StagedTree::open(out);
  if (!staged) return staged.error();
  auto result = unpack_into(stream, out, options, *staged);
  if (!result) return result;
  if (auto s = staged->stage(); !s) return s.error();
  for (const UnpackedFile& f : result->files)
    if (auto w = staged->write(f.relative, f.bytes); !w) return w.error();
  if (auto c = staged->commit(); !c) return c.error();
  return result;
}

}  // namespace covkit::model
