#pragma once
// Which objects of a running program were built from given source files,
// for `covkit live reset PID SOURCE...`. The running program holds only each
// object's .gcda name; the notes file beside it (.gcno) names the sources
// its functions come from. Without a notes file, an object named after the
// source (foo.c -> foo.gcda or foo.c.gcda, as gcc and CMake name them) is
// taken.
#include <string>
#include <vector>

namespace covkit::live {

class ObjectSources {
 public:
  // `sources` as the user named them; relative names are taken from the
  // current directory.
  explicit ObjectSources(const std::vector<std::string>& sources);
  // Whether the object whose data file is `gcda` was built from one of them;
  // remembers which sources matched.
  bool matches(const std::string& gcda);
  // The sources no object matched so far.
  std::vector<std::string> unmatched() const;

 private:
  struct Wanted {
    std::string given, absolute, base;
    bool matched = false;
  };
  std::vector<Wanted> wanted_;
};

}  // namespace covkit::live
