// Thrust's algorithms in kernels (kiln.jit.thrust, as cupyx.jit.thrust): the
// iterators kernels build (array.begin()/end(), pointer arithmetic on shared
// memory, make_constant_iterator, make_counting_iterator), the rules of the
// algorithm calls and their C++ (thrust.cpp). infer.cpp and lower*.cpp ask
// here; the C++ behind them is kiln/jit_thrust.h.
//
//   row = x[i]                                   # a view: x's row i (partial indexing)
//   jit.thrust.sort(jit.thrust.seq, row.begin(), row.end())
//   k = jit.thrust.find(jit.thrust.device, row.begin(), row.end(), 3) - row.begin()
//
// Note [kiln.jit.thrust]
// An algorithm runs in the thread that calls it, whatever the policy
// (thrust.seq or thrust.device), as Thrust's do in device code; kiln's own
// sequential implementations (kiln/jit_thrust.h) run on every backend, so a
// kernel gives the same results on the host and the GPU and compiles in
// milliseconds (Thrust's headers take seconds under NVRTC). sort and
// sort_by_key are a heap sort (equal keys may come out in another order
// than Thrust's); stable_sort and stable_sort_by_key a binary insertion
// sort (O(n^2) moves: meant for the short rows a thread owns). Iterators are
// values: a C-contiguous array's begin() is a pointer, a strided 1-d
// array's a kiln::jit::StridedIter (pointer and byte stride); iterators add
// and subtract integers, subtract each other (int64) and index (`it[i]`).
// Algorithms returning two iterators give a tuple of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "transpiler/builtins.h"
#include "transpiler/types.h"

namespace kiln::transpiler {

// The algorithms' names (jit.thrust.sort ...), for the builtin table.
std::vector<std::string_view> thrust_algorithm_names();
// The result of a jit.thrust algorithm or iterator-maker call (rule Thrust).
Type thrust_call_result(const BuiltinInfo& b, const CallSite& s);
// The iterator an iterator-like value is: an Iterator, or a shared/local
// memory array (a pointer to its first element); Invalid otherwise.
Type iterator_of(const Type& t);
// array.begin() / array.end() (site.self: the array).
Type array_iterator_result(const BuiltinInfo& b, const CallSite& s);
// The C++ type of an Iterator: "int*", "kiln::jit::StridedIter<float>", ...
std::string thrust_iterator_c_type(const Type& t);

}  // namespace kiln::transpiler
