#pragma once
// Graphviz (libgvc, and through it libcgraph, libcdt, libpathplan, libltdl,
// libexpat), loaded when a command first draws a graph: linked, its six
// libraries were loaded by every covkit command, `covkit gcov` included.
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "util/expected.h"

namespace covkit::trace {

// The functions covkit calls, named as Graphviz names them.
#define COVKIT_GRAPHVIZ_FUNCTIONS(X) \
  X(gvContext)                       \
  X(gvLayout)                        \
  X(gvRenderData)                    \
  X(gvFreeRenderData)                \
  X(gvFreeLayout)                    \
  X(agmemread)                       \
  X(agclose)                         \
  X(agseterrf)                       \
  X(agreseterrors)

struct GraphvizLibrary {
#define COVKIT_GRAPHVIZ_MEMBER(name) decltype(&::name) name = nullptr;
  COVKIT_GRAPHVIZ_FUNCTIONS(COVKIT_GRAPHVIZ_MEMBER)
#undef COVKIT_GRAPHVIZ_MEMBER
};

// Loaded once per process (thread-safe); later calls return the same
// functions, or the same Error ("cannot load libgvc.so.6 (needed to draw
// graphs): ...").
Expected<const GraphvizLibrary*> graphviz_library();

}  // namespace covkit::trace
