#include "trace/graphviz_library.h"

#include "util/shared_library.h"

#ifndef COVKIT_GVC_SONAME
#define COVKIT_GVC_SONAME "libgvc.so.6"
#endif

namespace covkit::trace {

namespace {

Expected<GraphvizLibrary> load_graphviz() {
  // libgvc needs libcgraph, so one handle finds the functions of both.
  auto library = util::SharedLibrary::open(COVKIT_GVC_SONAME, "to draw graphs (Graphviz)");
  if (!library) return library.error();
  GraphvizLibrary gv;
#define COVKIT_GRAPHVIZ_BIND(name) \
  if (auto bound = library->bind(gv.name, #name); !bound) return bound.error();
  COVKIT_GRAPHVIZ_FUNCTIONS(COVKIT_GRAPHVIZ_BIND)
#undef COVKIT_GRAPHVIZ_BIND
  return gv;
}

}  // namespace

Expected<const GraphvizLibrary*> graphviz_library() {
  static const Expected<GraphvizLibrary> loaded = load_graphviz();
  if (!loaded) return loaded.error();
  return &*loaded;
}

}  // namespace covkit::trace
