#include "live/object_sources.h"

#include <filesystem>
#include <system_error>

#include "format/gcno_reader.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/path_names.h"

namespace covkit::live {

namespace fs = std::filesystem;

namespace {

std::string normal(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : c).string();
}


}  // namespace

ObjectSources::ObjectSources(const std::vector<std::string>& sources) {
  for (const std::string& s : sources) {
    std::error_code ec;
    fs::path abs = fs::absolute(s, ec);
    wanted_.push_back({s, normal(ec ? fs::path(s) : abs), std::string(util::last_path_component(s)), false});
  }
}

bool ObjectSources::matches(const std::string& gcda) {
  bool any = false;
  std::string stem = gcda.ends_with(".gcda") ? gcda.substr(0, gcda.size() - 5) : gcda;
  // Named by the process: read with its user's rights (util/foreign_data.h).
  auto notes_data = util::read_named_file(stem + ".gcno");
  if (notes_data) {
    auto notes = format::read_notes(notes_data->bytes());
    if (notes) {
      std::vector<std::string> files;
      for (const auto& fn : notes->functions) {
        fs::path src(fn.source);
        if (src.is_relative()) src = fs::path(notes->cwd) / src;
        files.push_back(normal(src));
      }
      for (Wanted& w : wanted_)
        for (const std::string& f : files)
          if (f == w.absolute) {
            w.matched = any = true;
            break;
          }
      return any;
    }
  }
  std::string base(util::last_path_component(stem));
  for (Wanted& w : wanted_) {
    std::string no_ext = w.base.substr(0, w.base.rfind('.'));
    if (base == w.base || base == no_ext) w.matched = any = true;
  }
  return any;
}

std::vector<std::string> ObjectSources::unmatched() const {
  std::vector<std::string> out;
  for (const Wanted& w : wanted_)
    if (!w.matched) out.push_back(w.given);
  return out;
}

}  // namespace covkit::live
