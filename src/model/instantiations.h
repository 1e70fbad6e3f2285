#pragma once
// Which lines of a merged project show their instantiations
// (`covkit report --show-instantiations`).
#include "model/project_coverage.h"

namespace covkit::model {

// Keeps, on each line, the instances of functions that share their first
// line with another function of the file (template instantiations,
// constructor variants), as gcov groups them, but over the whole project:
// a template instantiated once in each of two objects is two instances.
// The instances of any other function (a plain function, or an inline one
// that several objects hold under the same name) are dropped.
void prune_instances(ProjectCov& project);

}  // namespace covkit::model
