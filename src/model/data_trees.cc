#include "model/data_trees.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "model/data_merge.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"
#include "util/staged_tree.h"

namespace covkit::model {

namespace {

namespace fs = std::filesystem;

// Relative path (with '/') -> the file in each tree that has it, in argument order.
using DataTrees = std::map<std::string, std::vector<std::string>>;

Error about(const std::string& file, const std::string& what) {
  return Error(fmt::format("{}: {}", util::printable(file), what));
}

Expected<void> collect_data_files(const std::string& root, DataTrees& trees) {
  std::error_code ec;
  // Symbolic links to directories are not followed: a link cycle must not
  // make the walk endless.
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".gcda") continue;
    // A .gcda that is not a regular file would silently lose a run's counts.
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) return about(p.string(), "not a regular file");
    trees[p.lexically_relative(root).generic_string()].push_back(p.string());
  }
  if (ec) return about(root, fmt::format("cannot read the directory: {}", ec.message()));
  return {};
}

Expected<format::DataFile> read_data_file(const std::string& path) {
  auto data = util::read_input_file(path);
  if (!data) return about(path, data.error().message);
  util::note_data_file(path, *data);
  auto result = format::read_data(data->bytes());
  if (!result) return about(path, result.error().message);
  if (result->error) return about(path, result->error->describe());
  return std::move(*result);
}

Expected<std::string> merge_one(const std::vector<std::string>& paths) {
  if (paths.size() == 1) {  // taken as it is, byte for byte
    auto data = util::read_input_file(paths[0]);
    if (!data) return about(paths[0], data.error().message);
    util::note_data_file(paths[0], *data);  // the merged tree is no more open than its inputs
    return std::string(data->text());
  }
  auto sum = read_data_file(paths[0]);
  if (!sum) return std::move(sum).error();
  for (size_t i = 1; i < paths.size(); ++i) {
    auto next = read_data_file(paths[i]);
    if (!next) return std::move(next).error();
    auto merged = merge_data(*sum, *next);
    if (!merged)
      return about(paths[i], fmt::format("cannot be added to {}: {}", util::printable(paths[0]),
                                         merged.error().message));
    sum = std::move(merged);
  }
  std::vector<uint8_t> bytes = format::write_data(*sum);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

Expected<std::vector<MergedDataFile>> merge_data_trees(const std::vector<std::string>& trees) {
  DataTrees files;
  for (const std::string& tree : trees)
    if (auto c = collect_data_files(tree, files); !c) return c.error();
  if (files.empty()) return about(trees.at(0), "no .gcda files in the given directories");
  std::vector<MergedDataFile> merged;
  for (const auto& [relative, paths] : files) {
    auto bytes = merge_one(paths);
    if (!bytes) return std::move(bytes).error();
    merged.push_back({relative, std::move(*bytes)});
  }
  return merged;
}

Expected<void> write_merged_data_trees(const std::vector<std::string>& trees, const std::string& out) {
  auto merged = merge_data_trees(trees);
  if (!merged) return merged.error();
  auto staged = util::StagedTree::begin(out);
  if (!staged) return staged.error();
  for (const MergedDataFile& m : *merged)
    if (auto w = staged->write(m.relative, m.bytes); !w) return w.error();
  return staged->commit();
}

}  // namespace covkit::model
