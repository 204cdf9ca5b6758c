// kiln's own AST for the Python subset kernels are written in. pyfrontend's
// ast_import.cpp builds it from Python's `ast` objects; nothing downstream
// touches Python. Every node carries its span in the user's file.
//
//   Module m;                                  // functions[0] is the kernel
//   auto& f = m.functions.emplace_back();
//   f.name = "add"; f.params = {{"x", span}, ...};
//   f.body.push_back(make_stmt(StmtKind::Assign, span));
//
// Names that are not locals of a function (module globals, closure cells,
// builtins) are resolved by the importer into `Global` nodes holding a
// GlobalValue: a builtin's qualified name ("kiln.jit.threadIdx", "math.sqrt",
// "builtins.range"), a constant captured by value, a dtype, or another Python
// function (compiled as a device function). Attribute chains through modules
// (`kiln.jit.threadIdx`, `math.pi`) are resolved the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arraycore/dtype.h"

namespace kiln::transpiler {

// Lines are 1-based, columns 0-based character offsets, both in the user's
// file (not the dedented text Python parsed). end_* is one past the end.
struct Span {
  int line = 0, col = 0, end_line = 0, end_col = 0;
};

struct ConstValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, Complex, String } kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  bool int_unsigned = false;  // Int above INT64_MAX, held in `i` as uint64 bits
  double f = 0, imag = 0;
  std::string s;
};

struct GlobalValue {
  enum class Kind : uint8_t {
    Builtin,   // `name`: a qualified builtin name looked up in builtins.cpp
    Constant,  // `value`: captured by value (cache keys include it)
    DType,     // `dtype`: kiln.float32, numpy.int8, ...
    Function,  // `function`: index of a device function in Module::functions
    Module,    // `name`: a module none of whose attributes was used
    Opaque,    // `name`: the Python type name of something kernels cannot use
  } kind = Kind::Opaque;
  std::string name;
  ConstValue value;
  arraycore::DType dtype = arraycore::DType::Float64;
  bool typed = false;  // Constant: a NumPy scalar (strong `dtype`), not a weak Python scalar
  int function = -1;
};

enum class ExprKind : uint8_t {
  Name, Const, Global, Attribute, Subscript, Call, BinOp, UnaryOp, BoolOp, Compare, IfExp, Tuple,
  Unsupported,  // `text` names the Python node ("lambda", "list comprehension")
};

enum class BinOp : uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor, MatMul };
enum class UnaryOp : uint8_t { Neg, Pos, Not, Invert };
enum class BoolOp : uint8_t { And, Or };
enum class CmpOp : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  ExprPtr value;
  Span span;
};

struct Expr {
  ExprKind kind;
  Span span;
  int id = -1;             // dense per function, set by number_nodes() (infer's side tables)
  std::string text;        // Name: identifier; Attribute: attribute; Unsupported: what
  ConstValue value;        // Const
  GlobalValue global;      // Global
  BinOp bin_op = BinOp::Add;
  UnaryOp unary_op = UnaryOp::Neg;
  BoolOp bool_op = BoolOp::And;
  std::vector<CmpOp> cmp_ops;       // Compare: ops[i] between operands[i] and operands[i+1]
  std::vector<ExprPtr> operands;    // children, in source order (see below)
  std::vector<Keyword> keywords;    // Call
  // Children by kind: Attribute {object}; Subscript {object, index}; Call
  // {callee, args...}; BinOp {left, right}; UnaryOp {operand}; BoolOp
  // {values...}; Compare {first, others...}; IfExp {test, body, orelse};
  // Tuple {elements...}.
  explicit Expr(ExprKind k, Span s = {}) : kind(k), span(s) {}
};

enum class StmtKind : uint8_t {
  Assign, AugAssign, ExprStmt, If, While, For, Break, Continue, Return, Pass, Assert,
  Unsupported,  // `text` names the Python statement ("try", "with", ...)
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
  StmtKind kind;
  Span span;
  int id = -1;
  std::string text;
  // Assign: targets (a = b = v has two), value. AugAssign: targets[0], op, value.
  // ExprStmt/Return/Assert: value (Return's may be null; Assert's message in msg).
  // If/While: value = test, body, orelse. For: targets[0], value = iterable, body, orelse.
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr msg;
  BinOp op = BinOp::Add;
  Block body, orelse;
  explicit Stmt(StmtKind k, Span s = {}) : kind(k), span(s) {}
};

struct Param {
  std::string name;
  Span span;
};

struct FunctionDef {
  std::string name;
  Span span;                        // the `def` line
  std::vector<Param> params;
  Block body;
  std::string file;                 // as the user knows it ("/home/u/k.py", "<stdin>")
  std::vector<std::string> lines;   // the file's lines [first_line, ...] for diagnostics
  int first_line = 1;               // line number of lines[0]
  bool device = false;              // @rawkernel(device=True) or called from a kernel
  bool has_defaults = false;        // defaults, *args, **kwargs, keyword-only: rejected
  Span bad_signature;               // where such a parameter is
  int num_exprs = 0, num_stmts = 0; // after number_nodes()
};

struct Module {
  std::vector<FunctionDef> functions;  // [0] is the kernel; others are called functions
  // A kiln.vectorize body and what it calls: Python's rules where a kernel's
  // differ (Note [Vectorize typing] in infer.h).
  bool vectorize = false;
};

inline ExprPtr make_expr(ExprKind k, Span s = {}) { return std::make_unique<Expr>(k, s); }
inline StmtPtr make_stmt(StmtKind k, Span s = {}) { return std::make_unique<Stmt>(k, s); }

// Gives every Expr and Stmt of `f` a dense id (0..num_exprs-1, 0..num_stmts-1).
void number_nodes(FunctionDef& f);

const char* bin_op_symbol(BinOp op);
const char* cmp_op_symbol(CmpOp op);

}  // namespace kiln::transpiler
