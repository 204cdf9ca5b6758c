// Axis arguments, checked as NumPy checks them: one place for every
// operation family (reductions, scans, sorts, views) to normalise axes.
//
//   int d = normalize_axis(-1, 3);                      // 2
//   normalize_axis(3, 2);                               // throws AxisError (numpy.exceptions.AxisError)
//   std::vector<int> ds = normalize_axes({0, -1}, 3);   // {0, 2}; a repeat throws std::invalid_argument
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::arraycore {

// An axis out of [-ndim, ndim): the bindings raise numpy.exceptions.AxisError(axis, ndim, argname),
// which formats NumPy's own message ("axis 3 is out of bounds for array of dimension 2").
class AxisError : public std::out_of_range {
 public:
  AxisError(int64_t axis, int ndim, std::string argname);
  int64_t axis;
  int ndim;
  std::string argname;   // empty: none (NumPy's message then names no argument)
};

// A Python-level TypeError raised from C++ (wrong kind of argument): the bindings raise TypeError.
class TypeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// axis in [0, ndim); AxisError otherwise.
int normalize_axis(int64_t axis, int ndim, const std::string& argname = {});

// Each axis normalised; a repeated axis throws std::invalid_argument(duplicate_message) (ValueError).
std::vector<int> normalize_axes(std::span<const int64_t> axes, int ndim, const std::string& argname = {},
                                const std::string& duplicate_message = "duplicate value in 'axis'");

}  // namespace kiln::arraycore
