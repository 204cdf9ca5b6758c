#include "transpiler/definite_assignment.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "transpiler/diagnostics.h"
#include "transpiler/infer.h"

namespace kiln::transpiler {
namespace {

using Assigned = std::optional<std::set<std::string>>;  // nullopt: unreachable

class DefiniteAssignment {
 public:
  DefiniteAssignment(const std::set<std::string>& params, const std::map<std::string, Span>& assigned)
      : params_(params), assigned_(assigned) {}
  Assigned da_block(const Block& b, Assigned in);

 private:
  Assigned da_stmt(const Stmt& s, Assigned in);
  void da_expr(const Expr& e, const std::set<std::string>& in);
  void da_target(const Expr& t, std::set<std::string>& in);

  const std::set<std::string>& params_;
  const std::map<std::string, Span>& assigned_;
  // Per enclosing loop: what is assigned at every `break` so far (nullopt:
  // no break yet). After `while True:` that is what is assigned.
  std::vector<Assigned> breaks_;
};

bool always_true(const Expr& e) {
  return e.kind == ExprKind::Const &&
         ((e.value.kind == ConstValue::Kind::Bool && e.value.b) || (e.value.kind == ConstValue::Kind::Int && e.value.i != 0));
}

bool always_false(const Expr& e) {
  return e.kind == ExprKind::Const &&
         ((e.value.kind == ConstValue::Kind::Bool && !e.value.b) || (e.value.kind == ConstValue::Kind::Int && e.value.i == 0));
}

// Note [Shuffled locals]
// A warp shuffle reads its value in the source lane: `if lane == 0: v = a`
// then `v = shfl_sync(mask, v, 0)` is CUDA's broadcast idiom (and CuPy
// accepts it), though the other lanes' `v` is unassigned. A local passed
// straight as a shuffle's value is therefore not checked; it is declared
// at the top of the function like every local, so the C++ is defined.
bool is_shuffle(const Expr& e) {
  if (e.kind != ExprKind::Call || e.operands[0]->kind != ExprKind::Global) return false;
  const GlobalValue& g = e.operands[0]->global;
  const BuiltinInfo* b = g.kind == GlobalValue::Kind::Builtin ? find_builtin(g.name) : nullptr;
  return b && b->rule == BuiltinRule::Shuffle;
}

Assigned meet(const Assigned& a, const Assigned& b) {
  if (!a) return b;
  if (!b) return a;
  std::set<std::string> both;
  std::set_intersection(a->begin(), a->end(), b->begin(), b->end(), std::inserter(both, both.begin()));
  return both;
}

void DefiniteAssignment::da_expr(const Expr& e, const std::set<std::string>& in) {
  if (e.kind == ExprKind::Name && !params_.count(e.text) && assigned_.count(e.text) && !in.count(e.text)) {
    fail(DiagKind::Unbound, e.span,
         "local `" + e.text + "` may be used before it is assigned: some path reaches this line without assigning it "
         "(a loop body may run zero times; a branch may not run); assign it before the loop or branch",
         {{assigned_.at(e.text), "`" + e.text + "` is assigned here"}});
  }
  for (size_t i = 0; i < e.operands.size(); ++i)
    if (!(i == 2 && e.operands[i]->kind == ExprKind::Name && is_shuffle(e))) da_expr(*e.operands[i], in);
  for (const auto& k : e.keywords) da_expr(*k.value, in);
}

void DefiniteAssignment::da_target(const Expr& t, std::set<std::string>& in) {
  if (t.kind == ExprKind::Name) in.insert(t.text);
  else if (t.kind == ExprKind::Tuple)
    for (const auto& o : t.operands) da_target(*o, in);
  else
    da_expr(t, in);
}

Assigned DefiniteAssignment::da_block(const Block& b, Assigned in) {
  for (const auto& s : b) {
    if (!in) return in;
    in = da_stmt(*s, std::move(in));
  }
  return in;
}

Assigned DefiniteAssignment::da_stmt(const Stmt& s, Assigned in) {
  std::set<std::string>& set = *in;
  switch (s.kind) {
    case StmtKind::Assign:
      da_expr(*s.value, set);
      for (const auto& t : s.targets) da_target(*t, set);
      return in;
    case StmtKind::AugAssign:
      da_expr(*s.targets[0], set);
      da_expr(*s.value, set);
      return in;
    case StmtKind::If: {
      da_expr(*s.value, set);
      Assigned a = da_block(s.body, in), b = da_block(s.orelse, in);
      if (always_true(*s.value)) return a;    // `if True:` never takes its else
      if (always_false(*s.value)) return b;
      if (!a) return b;
      if (!b) return a;
      std::set<std::string> both;
      std::set_intersection(a->begin(), a->end(), b->begin(), b->end(), std::inserter(both, both.begin()));
      return both;
    }
    case StmtKind::While: {
      da_expr(*s.value, set);
      breaks_.push_back(std::nullopt);
      da_block(s.body, in);
      Assigned at_breaks = breaks_.back();
      breaks_.pop_back();
      // `while True:` ends only at a break: what every break has assigned.
      return always_true(*s.value) ? at_breaks : in;
    }
    case StmtKind::For: {
      da_expr(*s.value, set);
      Assigned body = in;
      da_target(*s.targets[0], *body);
      breaks_.push_back(std::nullopt);
      da_block(s.body, body);
      breaks_.pop_back();
      // A constant range that is not empty assigns its target at least once.
      const Expr& r = *s.value;
      if (r.kind == ExprKind::Call && r.operands.size() >= 2 && r.operands.size() <= 4) {
        std::vector<std::optional<long long>> v;
        for (size_t i = 1; i < r.operands.size(); ++i) v.push_back(const_int(*r.operands[i]));
        long long start = 0, stop = 0, step = 1;
        bool known = true;
        for (auto& x : v) known = known && x.has_value();
        if (known) {
          if (v.size() == 1) stop = *v[0];
          else { start = *v[0]; stop = *v[1]; if (v.size() == 3) step = *v[2]; }
          if ((step > 0 && start < stop) || (step < 0 && start > stop)) da_target(*s.targets[0], *in);
        }
      }
      return in;
    }
    case StmtKind::Return:
      if (s.value) da_expr(*s.value, set);
      return std::nullopt;
    case StmtKind::Break:
      if (!breaks_.empty()) breaks_.back() = meet(breaks_.back(), in);
      return std::nullopt;
    case StmtKind::Continue:
      return std::nullopt;
    case StmtKind::ExprStmt: case StmtKind::Assert:
      da_expr(*s.value, set);
      return in;
    default:
      return in;
  }
}

}  // namespace

bool check_definite_assignment(const FunctionDef& f, const std::set<std::string>& params,
                               const std::map<std::string, Span>& assigned) {
  return DefiniteAssignment(params, assigned).da_block(f.body, params).has_value();
}

}  // namespace kiln::transpiler
