// The C++ IR lowering produces and emission prints: expressions and
// statements with C++ types already decided, and no Python left in them.
//
//   CExprPtr e = c_binary("+", c_atom("x_"), c_atom("2.0f"));
//   CStmt s = c_assign(c_atom("y_"), e);
//   emit(module) -> "y_ = (x_ + 2.0f);"
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::transpiler {

struct CExpr;
struct CStmt;
using CExprPtr = std::shared_ptr<const CExpr>;

struct CExpr {
  enum class Kind : uint8_t {
    Atom,     // text as is: a name, a literal, threadIdx.x
    Call,     // text(args...)
    Binary,   // (args[0] text args[1])
    Unary,    // text(args[0])
    Cast,     // static_cast<text>(args[0])
    Ternary,  // (args[0] ? args[1] : args[2])
    Member,   // args[0].text
    Index,    // args[0][args[1]]
    Init,     // text{args...}: aggregate initialisation
    Lambda,   // [&]() -> text { body; }(): statements with their own returns
  } kind = Kind::Atom;
  std::string text;
  std::vector<CExprPtr> args;
  std::vector<CStmt> body;  // Lambda
};

struct CStmt {
  enum class Kind : uint8_t {
    Line,      // `// line N: source` then #line N "file" (line, text)
    Decl,      // type name[array_size] = init;  (init, array_size optional)
    Assign,    // lhs = rhs;
    Expr,      // rhs;
    If,        // if (cond) body else orelse
    While,     // while (cond) body
    For,       // pragma; for (init; cond; step) body
    Break, Continue,
    Return,    // return rhs; (rhs may be null)
    Block,     // { body }
  } kind = Kind::Expr;
  int line = 0;
  std::string text;   // Line: the Python source line; Decl: the type; For: a #pragma line or ""
  std::string name;   // Decl
  long long array_size = -1;
  CExprPtr lhs, rhs, cond, step;
  std::vector<CStmt> body, orelse, init;
};

struct CFunction {
  std::string qualifiers;  // "extern \"C\" __global__" or "__device__"
  std::string return_type;
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;  // (type, name)
  std::vector<CStmt> body;
  int line = 0;            // the def line
  std::string file;        // the Python file, for #line
};

struct CModule {
  std::vector<std::string> includes;  // "kiln/jit.h"
  std::vector<CFunction> functions;   // callees first
};

// ---- builders ----
CExprPtr c_atom(std::string text);
CExprPtr c_call(std::string fn, std::vector<CExprPtr> args);
CExprPtr c_binary(std::string op, CExprPtr a, CExprPtr b);
CExprPtr c_unary(std::string op, CExprPtr a);
CExprPtr c_cast(std::string type, CExprPtr a);
CExprPtr c_ternary(CExprPtr c, CExprPtr a, CExprPtr b);
CExprPtr c_member(CExprPtr a, std::string field);
CExprPtr c_index(CExprPtr a, CExprPtr i);
CExprPtr c_init(std::string type, std::vector<CExprPtr> args);
CExprPtr c_lambda(std::string type, std::vector<CStmt> body);

CStmt c_line(int line, std::string text);
CStmt c_decl(std::string type, std::string name, CExprPtr init = nullptr, long long array_size = -1);
CStmt c_assign(CExprPtr lhs, CExprPtr rhs);
CStmt c_expr_stmt(CExprPtr e);
CStmt c_if(CExprPtr cond, std::vector<CStmt> body, std::vector<CStmt> orelse = {});
CStmt c_while(CExprPtr cond, std::vector<CStmt> body);
CStmt c_for(std::vector<CStmt> init, CExprPtr cond, CExprPtr step, std::vector<CStmt> body, std::string pragma = "");
CStmt c_return(CExprPtr value = nullptr);
CStmt c_simple(CStmt::Kind kind);
CStmt c_block(std::vector<CStmt> body);

// The C++ text of a module (emit.cpp).
std::string emit(const CModule& m);
std::string emit_expr(const CExpr& e);

}  // namespace kiln::transpiler
