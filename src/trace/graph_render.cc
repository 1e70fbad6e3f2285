#include "trace/graph_render.h"

#include <memory>
#include <mutex>

#include "trace/graphviz_library.h"
#include "util/sanitizer.h"

namespace covkit::trace {

namespace {

std::mutex graphviz_mutex;   // Graphviz is not thread-safe
std::string* captured = nullptr;  // where messages go while the mutex is held

int capture_message(char* message) {
  if (captured && message) *captured += message;
  return 0;
}

// Graphviz's messages ("Error: syntax error in line 1 near 'x'\n", then
// continuation lines) as one line: prefixes dropped, errors before warnings.
std::string one_line(const std::string& text) {
  std::string errors, warnings, *current = &errors;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (line.starts_with("Error: ")) {
      current = &errors;
      line.remove_prefix(7);
    } else if (line.starts_with("Warning: ")) {
      current = &warnings;
      line.remove_prefix(9);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (!current->empty()) *current += "; ";
    *current += line;
  }
  return errors.empty() ? warnings : errors;
}

struct Capture {
  const GraphvizLibrary& gv;
  std::string text;
  agusererrf previous;
  explicit Capture(const GraphvizLibrary& library) : gv(library) {
    captured = &text;
    previous = gv.agseterrf(capture_message);
    gv.agreseterrors();
  }
  ~Capture() {
    gv.agseterrf(previous);
    captured = nullptr;
  }
};

}  // namespace

Expected<std::string> render_dot(std::string_view dot, const std::string& format) {
  auto fail = [&](const std::string& what, const std::string& messages) -> Expected<std::string> {
    std::string detail = one_line(messages);
    return Error(detail.empty() ? what : what + ": " + detail);
  };
  auto library = graphviz_library();
  if (!library) return library.error();
  const GraphvizLibrary& gv = **library;
  std::lock_guard<std::mutex> lock(graphviz_mutex);
  Capture capture(gv);
  // One context for the whole process, never freed: Graphviz 2.43's pango
  // plugin keeps a pointer to the last font name, which lives in the
  // context's font table; freeing the context leaves it dangling for the
  // next layout (a use-after-free under AddressSanitizer).
  static GVC_t* gvc = gv.gvContext();
  if (!gvc) return fail("Graphviz could not start", capture.text);
  const std::string text(dot);  // agmemread wants a NUL-terminated string
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(gv.agmemread(text.c_str()), gv.agclose);
  if (!graph) return fail("Graphviz could not read the graph", capture.text);
  if (gv.gvLayout(gvc, graph.get(), "dot") != 0) return fail("Graphviz could not lay out the graph", capture.text);
  char* data = nullptr;
  unsigned int length = 0;
  int status = gv.gvRenderData(gvc, graph.get(), format.c_str(), &data, &length);
  const bool rendered = status == 0 && data;
  std::string result = rendered ? std::string(data, length) : std::string();
  if (data) gv.gvFreeRenderData(data);
  gv.gvFreeLayout(gvc, graph.get());
  if (!rendered) return fail("Graphviz could not render " + format, capture.text);
  return result;
}

}  // namespace covkit::trace

#if COVKIT_ASAN
// LeakSanitizer: fontconfig, which Graphviz's text layout (pango) loads
// once per process, keeps its configuration and font sets in allocations it
// never frees and no longer points to; they are not covkit's. The runtime
// reads this hook from the executable (covkit and the unit tests link this
// file whenever they render).
// Graphviz itself (libgvc's gmalloc, no frames below it) keeps 368 bytes of
// a layout that agclose and gvFreeLayout do not free, for some graphs
// (gprof's call graph with cycle nodes); the context is never freed either.
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\nleak:libgvc.so\n"; }
// ... silently: the list of used suppressions would end up in stderr checks.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif
