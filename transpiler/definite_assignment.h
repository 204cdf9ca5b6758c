// The definite-assignment pass (Note [Definite assignment] in infer.h): a
// local read where some path reaches it unassigned is an UnboundLocalError.
//
//   bool falls_off = check_definite_assignment(f, {"x", "n"}, {{"s", span_of_first_assignment}});
#pragma once

#include <map>
#include <set>
#include <string>

#include "transpiler/ast.h"

namespace kiln::transpiler {

// params: the function's parameters; assigned: each local and the span of
// its first assignment (for the note). Throws TranspileError (Unbound).
// Returns whether the end of the body is reachable: some path falls off it
// without a `return` (Note [Missing return] in infer.h).
bool check_definite_assignment(const FunctionDef& f, const std::set<std::string>& params,
                               const std::map<std::string, Span>& assigned);

}  // namespace kiln::transpiler
