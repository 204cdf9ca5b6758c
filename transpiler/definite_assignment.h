// The definite-assignment pass (Note [Definite assignment] in infer.h): a
// local read where some path reaches it unassigned is an UnboundLocalError.
//
//   check_definite_assignment(f, {"x", "n"}, {{"s", span_of_first_assignment}});
#pragma once

#include <map>
#include <set>
#include <string>

#include "transpiler/ast.h"

namespace kiln::transpiler {

// params: the function's parameters; assigned: each local and the span of
// its first assignment (for the note). Throws TranspileError (Unbound).
void check_definite_assignment(const FunctionDef& f, const std::set<std::string>& params,
                               const std::map<std::string, Span>& assigned);

}  // namespace kiln::transpiler
