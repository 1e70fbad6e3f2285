#pragma once
// Where each report page lives and how files group into directories. Page
// names are flat (no '/'), so no source path — absolute, with "..", or with
// odd bytes — can place a page outside the output directory, and a hash of
// the whole path keeps "a/b_c.c" and "a_b/c.c" apart.
#include <string>
#include <string_view>

namespace covkit::report::html {

// "src/a b.c" -> "src_a_b.c-<10 hex of md5(path)>.html": only [A-Za-z0-9._-],
// never starting with '.', never "index.html" or an asset name.
std::string page_file_name(std::string_view source_path);

// A directory's page: "dir-src_core-<10 hex of md5(path + '/')>.html". The
// hash differs from any file's (no file path ends in '/').
std::string directory_page_name(std::string_view directory);

// The directory part of a report path ("." for a file at the root) and the
// name within it; the index groups files by the former.
std::string directory_of(std::string_view source_path);
std::string base_name_of(std::string_view source_path);

}  // namespace covkit::report::html
