#include "format/covkit_json_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "format/gcno.h"  // kMaxLineNumber
#include "util/printable.h"

namespace covkit::format {

namespace {

using Json = nlohmann::json;

// The schema nests 5 deep; refusing deeper input up front keeps hostile
// documents from costing stack or memory in the JSON library.
constexpr int kMaxDepth = 16;

// Byte offset where nesting first exceeds kMaxDepth or a NUL byte stands
// (never valid JSON, and a huge sparse file is all NULs: it is refused at
// once instead of after a scan of gigabytes), or npos.
size_t too_deep_at(std::string_view t) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\0') return i;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// Where a member sits ("files[2].lines[7].count"), built only for messages.
struct Where {
  const Where* parent = nullptr;
  std::string_view key;
  int64_t index = -1;  // >= 0: the key names an array and this is the element

  std::string str() const {
    std::string s = parent ? parent->str() : std::string();
    if (!key.empty()) {
      if (!s.empty()) s += '.';
      s += key;
    }
    if (index >= 0) s += fmt::format("[{}]", index);
    return s;
  }
};

// A string from the input, made safe and short for a one-line message.
std::string quoted(const std::string& s) {
  std::string p = util::printable(s.size() > 60 ? s.substr(0, 60) + "..." : s);
  return "\"" + p + "\"";
}

const char* type_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_float: return "a floating-point number";
    default: return "a number";
  }
}

class Reader {
 public:
  const std::optional<Error>& error() const { return error_; }

  bool document(const Json& doc, CoverageRecords& out) {
    const Where root;
    if (!doc.is_object())
      return fail_plain(fmt::format("not a covkit coverage file: the document is {}, not an object", type_name(doc)));
    auto fmt_it = doc.find("format");
    if (fmt_it == doc.end() || !fmt_it->is_string())
      return fail_plain(fmt::format("not a covkit coverage file: no \"format\": \"{}\" member", kCovkitJsonFormat));
    if (fmt_it->get_ref<const std::string&>() != kCovkitJsonFormat)
      return fail_plain(fmt::format("not a covkit coverage file: format is {}, expected \"{}\"",
                                    quoted(fmt_it->get_ref<const std::string&>()), kCovkitJsonFormat));
    int64_t version = 0;
    if (!integer(doc, "format_version", root, true, 0, std::numeric_limits<int64_t>::max(), version)) return false;
    if (version != kCovkitJsonVersion)
      return fail_plain(
          fmt::format("unsupported format_version {} (this covkit reads version {})", version, kCovkitJsonVersion));
    const Json* files = array(doc, "files", root, true);
    if (!files) return false;
    out.sources.reserve(files->size());
    for (size_t i = 0; i < files->size(); ++i) {
      const Where w{&root, "files", int64_t(i)};
      SourceRecord f;
      if (!file((*files)[i], w, f)) return false;
      out.sources.push_back(std::move(f));
    }
    return true;
  }

 private:
  bool fail(const std::string& where, const std::string& what) {
    if (!error_) error_ = Error(where.empty() ? what : where + ": " + what);
    return false;
  }
  bool fail_plain(const std::string& what) {
    if (!error_) error_ = Error(what);
    return false;
  }

  // obj[key] if present (else nullptr, an error when required).
  const Json* member(const Json& obj, std::string_view key, const Where& w, bool required) {
    auto it = obj.find(key);
    if (it != obj.end()) return &*it;
    if (required) fail(w.str(), fmt::format("missing \"{}\"", key));
    return nullptr;
  }

  const Json* array(const Json& obj, std::string_view key, const Where& w, bool required) {
    const Json* j = member(obj, key, w, required);
    if (!j) return nullptr;
    if (!j->is_array()) {
      fail(Where{&w, key}.str(), fmt::format("must be an array, not {}", type_name(*j)));
      return nullptr;
    }
    return j;
  }

  // False only on error; an absent optional member leaves `out` alone.
  bool integer(const Json& obj, std::string_view key, const Where& w, bool required, int64_t lo, int64_t hi,
               int64_t& out) {
    const Json* j = member(obj, key, w, required);
    if (!j) return !required;
    const Where here{&w, key};
    if (!j->is_number_integer()) return fail(here.str(), fmt::format("must be an integer, not {}", type_name(*j)));
    if (j->is_number_unsigned()) {
      const uint64_t v = j->get<uint64_t>();
      if (v > uint64_t(hi) || (lo > 0 && v < uint64_t(lo))) return fail(here.str(), fmt::format("{} is out of range ({}..{})", v, lo, hi));
      out = int64_t(v);
      return true;
    }
    const int64_t v = j->get<int64_t>();
    if (v < lo || v > hi) return fail(here.str(), fmt::format("{} is out of range ({}..{})", v, lo, hi));
    out = v;
    return true;
  }

  template <typename T>
  bool ranged(const Json& obj, std::string_view key, const Where& w, bool required, int64_t lo, int64_t hi,
                      T& out) {
    int64_t v = int64_t(out);
    if (!integer(obj, key, w, required, lo, hi, v)) return false;
    out = T(v);
    return true;
  }

  bool count(const Json& obj, std::string_view key, const Where& w, bool required, int64_t& out) {
    return integer(obj, key, w, required, 0, std::numeric_limits<int64_t>::max(), out);
  }

  bool boolean(const Json& obj, std::string_view key, const Where& w, bool& out) {
    const Json* j = member(obj, key, w, false);
    if (!j) return true;
    if (!j->is_boolean()) return fail(Where{&w, key}.str(), fmt::format("must be a boolean, not {}", type_name(*j)));
    out = j->get<bool>();
    return true;
  }

  bool string(const Json& obj, std::string_view key, const Where& w, bool required, std::string& out) {
    const Json* j = member(obj, key, w, required);
    if (!j) return !required;
    const Where here{&w, key};
    if (!j->is_string()) return fail(here.str(), fmt::format("must be a string, not {}", type_name(*j)));
    const std::string& s = j->get_ref<const std::string&>();
    // Names go to file systems and C APIs, where a NUL would cut them short.
    if (s.find('\0') != std::string::npos) return fail(here.str(), "contains a NUL character");
    out = s;
    return true;
  }

  bool object(const Json& j, const Where& w) {
    return j.is_object() || fail(w.str(), fmt::format("must be an object, not {}", type_name(j)));
  }

  bool file(const Json& j, const Where& w, SourceRecord& f) {
    if (!object(j, w)) return false;
    if (!string(j, "path", w, true, f.path)) return false;
    if (f.path.empty()) return fail(Where{&w, "path"}.str(), "is empty");
    if (!string(j, "absolute_path", w, false, f.absolute_path)) return false;
    const Json* lines = array(j, "lines", w, false);
    if (error_) return false;
    if (lines) {
      f.lines.reserve(lines->size());
      for (size_t i = 0; i < lines->size(); ++i) {
        LineRecord l;
        if (!line((*lines)[i], Where{&w, "lines", int64_t(i)}, l)) return false;
        f.lines.push_back(std::move(l));
      }
    }
    const Json* functions = array(j, "functions", w, false);
    if (error_) return false;
    if (functions) {
      f.functions.reserve(functions->size());
      for (size_t i = 0; i < functions->size(); ++i) {
        FunctionRecord fn;
        if (!function((*functions)[i], Where{&w, "functions", int64_t(i)}, fn)) return false;
        f.functions.push_back(std::move(fn));
      }
    }
    // Clang's counted regions: [line_start, column_start, line_end, column_end, count].
    const Json* regions = array(j, "regions", w, false);
    if (error_) return false;
    if (regions) {
      f.regions.reserve(regions->size());
      for (size_t i = 0; i < regions->size(); ++i) {
        const Where rw{&w, "regions", int64_t(i)};
        const Json& r = (*regions)[i];
        if (!r.is_array() || r.size() != 5) return fail(rw.str(), "must be an array of 5 integers");
        constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
        uint64_t v[4];
        for (int k = 0; k < 4; ++k) {
          if (!r[size_t(k)].is_number_unsigned() || r[size_t(k)].get<uint64_t>() > kU32)
            return fail(rw.str(), "lines and columns must be integers from 0 to 4294967295");
          v[k] = r[size_t(k)].get<uint64_t>();
        }
        if (!r[4].is_number_integer()) return fail(rw.str(), "the count must be an integer");
        RegionRecord rr{uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3]),
                        r[4].is_number_unsigned() && r[4].get<uint64_t>() > uint64_t(INT64_MAX)
                            ? INT64_MAX
                            : std::max<int64_t>(0, r[4].get<int64_t>())};
        f.regions.push_back(rr);
      }
    }
    return true;
  }

  bool line(const Json& j, const Where& w, LineRecord& l) {
    if (!object(j, w)) return false;
    if (!ranged(j, "line", w, true, 1, kMaxLineNumber, l.number)) return false;
    if (!count(j, "count", w, true, l.count)) return false;
    if (!boolean(j, "unexecuted_block", w, l.unexecuted_block)) return false;
    if (!boolean(j, "inferred", w, l.inferred)) return false;
    if (!boolean(j, "no_count", w, l.no_count)) return false;
    if (const Json* bs = array(j, "branches", w, false)) {
      l.branches.reserve(bs->size());
      for (size_t i = 0; i < bs->size(); ++i) {
        const Where bw{&w, "branches", int64_t(i)};
        const Json& b = (*bs)[i];
        BranchRecord bc;
        if (!object(b, bw) || !count(b, "count", bw, true, bc.count) || !boolean(b, "executed", bw, bc.executed) ||
            !boolean(b, "throw", bw, bc.is_throw) || !boolean(b, "fallthrough", bw, bc.fallthrough) ||
            !boolean(b, "unreachable", bw, bc.unreachable) ||
            !ranged(b, "block", bw, false, 0, std::numeric_limits<uint32_t>::max(), bc.block))
          return false;
        l.branches.push_back(bc);
      }
    } else if (error_) {
      return false;
    }
    if (const Json* is = array(j, "instances", w, false)) {
      l.instances.reserve(is->size());
      for (size_t i = 0; i < is->size(); ++i) {
        const Where iw{&w, "instances", int64_t(i)};
        const Json& inst = (*is)[i];
        InstanceRecord li;
        if (!object(inst, iw) || !string(inst, "function", iw, true, li.function) ||
            !count(inst, "count", iw, true, li.count))
          return false;
        l.instances.push_back(std::move(li));
      }
    } else if (error_) {
      return false;
    }
    return true;
  }

  bool function(const Json& j, const Where& w, FunctionRecord& fn) {
    constexpr int64_t kU32 = std::numeric_limits<uint32_t>::max();
    // 0 is "unknown" for a function's lines (compiler-made functions have none).
    return object(j, w) && string(j, "name", w, true, fn.name) && string(j, "demangled", w, false, fn.demangled) &&
           ranged(j, "start_line", w, false, 0, kMaxLineNumber, fn.start_line) &&
           ranged(j, "start_column", w, false, 0, kU32, fn.start_column) &&
           ranged(j, "end_line", w, false, 0, kMaxLineNumber, fn.end_line) &&
           ranged(j, "end_column", w, false, 0, kU32, fn.end_column) &&
           count(j, "execution_count", w, false, fn.execution_count) &&
           ranged(j, "blocks", w, false, 0, kU32, fn.blocks) &&
           ranged(j, "blocks_executed", w, false, 0, kU32, fn.blocks_executed) &&
           ranged(j, "regions", w, false, 0, kU32, fn.regions) &&
           ranged(j, "regions_covered", w, false, 0, kU32, fn.regions_covered);
  }

  std::optional<Error> error_;
};

}  // namespace

Expected<CoverageRecords> read_covkit_json(std::string_view text) {
  try {
    if (size_t at = too_deep_at(text); at != std::string_view::npos)
      return Error(at, text[at] == '\0' ? fmt::format("invalid JSON: a NUL byte at byte {}", at)
                                         : fmt::format("invalid covkit JSON: nested deeper than {} levels", kMaxDepth));
    Json doc;
    try {
      doc = Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
      // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ..."; keep the part after "] ".
      std::string what = e.what();
      if (size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
      return Error(e.byte > 0 ? e.byte - 1 : 0, "invalid JSON: " + util::printable(what));
    }
    Reader reader;
    CoverageRecords records;
    if (!reader.document(doc, records)) return *reader.error();
    return records;
  } catch (const std::bad_alloc&) {
    return Error("out of memory reading covkit JSON");
  } catch (const std::exception& e) {
    // The checks above should leave nothing to throw; never let it escape.
    return Error(std::string("invalid covkit JSON: ") + util::printable(e.what()));
  }
}

}  // namespace covkit::format
