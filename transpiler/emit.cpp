// Prints the C++ IR: one statement a line, indented, each Python line's
// statements behind a `// line N: source` comment and a #line directive so
// compiler messages, sanitizers and debuggers name the user's .py line.
#include <sstream>

#include "transpiler/cir.h"

namespace kiln::transpiler {
namespace {
CExprPtr make(CExpr::Kind kind, std::string text, std::vector<CExprPtr> args, std::vector<CStmt> body = {}) {
  auto e = std::make_shared<CExpr>();
  e->kind = kind;
  e->text = std::move(text);
  e->args = std::move(args);
  e->body = std::move(body);
  return e;
}
}  // namespace

CExprPtr c_atom(std::string text) { return make(CExpr::Kind::Atom, std::move(text), {}); }
CExprPtr c_call(std::string fn, std::vector<CExprPtr> args) {
  return make(CExpr::Kind::Call, std::move(fn), std::move(args));
}
CExprPtr c_binary(std::string op, CExprPtr a, CExprPtr b) {
  return make(CExpr::Kind::Binary, std::move(op), {std::move(a), std::move(b)});
}
CExprPtr c_unary(std::string op, CExprPtr a) {
  return make(CExpr::Kind::Unary, std::move(op), {std::move(a)});
}
CExprPtr c_cast(std::string type, CExprPtr a) {
  return make(CExpr::Kind::Cast, std::move(type), {std::move(a)});
}
CExprPtr c_ternary(CExprPtr c, CExprPtr a, CExprPtr b) {
  return make(CExpr::Kind::Ternary, "", {std::move(c), std::move(a), std::move(b)});
}
CExprPtr c_member(CExprPtr a, std::string field) {
  return make(CExpr::Kind::Member, std::move(field), {std::move(a)});
}
CExprPtr c_index(CExprPtr a, CExprPtr i) {
  return make(CExpr::Kind::Index, "", {std::move(a), std::move(i)});
}
CExprPtr c_init(std::string type, std::vector<CExprPtr> args) {
  return make(CExpr::Kind::Init, std::move(type), std::move(args));
}
CExprPtr c_lambda(std::string type, std::vector<CStmt> body) {
  return make(CExpr::Kind::Lambda, std::move(type), {}, std::move(body));
}

CStmt c_line(int line, std::string text) {
  CStmt s = c_simple(CStmt::Kind::Line);
  s.line = line;
  s.text = std::move(text);
  return s;
}
CStmt c_decl(std::string type, std::string name, CExprPtr init, long long array_size) {
  CStmt s = c_simple(CStmt::Kind::Decl);
  s.text = std::move(type);
  s.name = std::move(name);
  s.rhs = std::move(init);
  s.array_size = array_size;
  return s;
}
CStmt c_assign(CExprPtr lhs, CExprPtr rhs) {
  CStmt s = c_simple(CStmt::Kind::Assign);
  s.lhs = std::move(lhs);
  s.rhs = std::move(rhs);
  return s;
}
CStmt c_expr_stmt(CExprPtr e) {
  CStmt s = c_simple(CStmt::Kind::Expr);
  s.rhs = std::move(e);
  return s;
}
CStmt c_if(CExprPtr cond, std::vector<CStmt> body, std::vector<CStmt> orelse) {
  CStmt s = c_simple(CStmt::Kind::If);
  s.cond = std::move(cond);
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return s;
}
CStmt c_while(CExprPtr cond, std::vector<CStmt> body) {
  CStmt s = c_simple(CStmt::Kind::While);
  s.cond = std::move(cond);
  s.body = std::move(body);
  return s;
}
CStmt c_for(std::vector<CStmt> init, CExprPtr cond, CExprPtr step, std::vector<CStmt> body, std::string pragma) {
  CStmt s = c_simple(CStmt::Kind::For);
  s.init = std::move(init);
  s.cond = std::move(cond);
  s.step = std::move(step);
  s.body = std::move(body);
  s.text = std::move(pragma);
  return s;
}
CStmt c_return(CExprPtr value) {
  CStmt s = c_simple(CStmt::Kind::Return);
  s.rhs = std::move(value);
  return s;
}
CStmt c_simple(CStmt::Kind kind) {
  CStmt s;
  s.kind = kind;
  return s;
}
CStmt c_block(std::vector<CStmt> body) {
  CStmt s = c_simple(CStmt::Kind::Block);
  s.body = std::move(body);
  return s;
}

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class Printer {
 public:
  explicit Printer(std::string file) : file_(std::move(file)) {}

  std::string expr(const CExpr& e) {
    switch (e.kind) {
      case CExpr::Kind::Atom: return e.text;
      case CExpr::Kind::Call: {
        std::string s = e.text + "(";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + expr(*e.args[i]);
        return s + ")";
      }
      case CExpr::Kind::Binary: return "(" + expr(*e.args[0]) + " " + e.text + " " + expr(*e.args[1]) + ")";
      case CExpr::Kind::Unary: return "(" + e.text + expr(*e.args[0]) + ")";
      case CExpr::Kind::Cast: return "static_cast<" + e.text + ">(" + expr(*e.args[0]) + ")";
      case CExpr::Kind::Ternary:
        return "(" + expr(*e.args[0]) + " ? " + expr(*e.args[1]) + " : " + expr(*e.args[2]) + ")";
      case CExpr::Kind::Member: return expr(*e.args[0]) + "." + e.text;
      case CExpr::Kind::Index: return expr(*e.args[0]) + "[" + expr(*e.args[1]) + "]";
      case CExpr::Kind::Init: {
        std::string s = e.text + "{";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + expr(*e.args[i]);
        return s + "}";
      }
      case CExpr::Kind::Lambda: {
        std::ostringstream body;
        Printer inner(file_);
        inner.depth_ = 0;
        for (const auto& st : e.body) inner.stmt(st, body, /*inline_mode=*/true);
        return "[&]() -> " + e.text + " { " + body.str() + "}()";
      }
    }
    return "";
  }

  void indent(std::ostream& out) {
    for (int i = 0; i < depth_; ++i) out << "  ";
  }

  void block(const std::vector<CStmt>& body, std::ostream& out) {
    ++depth_;
    for (const auto& s : body) stmt(s, out, false);
    --depth_;
  }

  // inline_mode: inside a lambda, on one line.
  void stmt(const CStmt& s, std::ostream& out, bool inline_mode) {
    auto begin = [&] {
      if (!inline_mode) indent(out);
    };
    auto end = [&] { out << (inline_mode ? " " : "\n"); };
    switch (s.kind) {
      case CStmt::Kind::Line:
        if (inline_mode) return;
        indent(out);
        out << "// line " << s.line << ": " << s.text << "\n";
        out << "#line " << s.line << " " << quoted(file_) << "\n";
        return;
      case CStmt::Kind::Decl:
        begin();
        out << s.text << " " << s.name;
        if (s.array_size >= 0) out << "[" << s.array_size << "]";
        if (s.rhs) out << " = " << expr(*s.rhs);
        out << ";";
        end();
        return;
      case CStmt::Kind::Assign:
        begin();
        out << expr(*s.lhs) << " = " << expr(*s.rhs) << ";";
        end();
        return;
      case CStmt::Kind::Expr:
        begin();
        out << expr(*s.rhs) << ";";
        end();
        return;
      case CStmt::Kind::If: {
        begin();
        out << "if (" << expr(*s.cond) << ") {";
        nested(s.body, out, inline_mode);
        const CStmt* cur = &s;
        // else-if chains print flat
        while (cur->orelse.size() == 1 && cur->orelse[0].kind == CStmt::Kind::If) {
          cur = &cur->orelse[0];
          out << "} else if (" << expr(*cur->cond) << ") {";
          nested(cur->body, out, inline_mode);
        }
        if (!cur->orelse.empty()) {
          out << "} else {";
          nested(cur->orelse, out, inline_mode);
        }
        out << "}";
        end();
        return;
      }
      case CStmt::Kind::While:
        begin();
        out << "while (" << expr(*s.cond) << ") {";
        nested(s.body, out, inline_mode);
        out << "}";
        end();
        return;
      case CStmt::Kind::For: {
        if (!s.text.empty()) {
          begin();
          out << s.text << "\n";
        }
        begin();
        out << "for (";
        for (const auto& i : s.init) {
          out << i.text << " " << i.name;
          if (i.rhs) out << " = " << expr(*i.rhs);
        }
        out << "; " << expr(*s.cond) << "; " << (s.step ? expr(*s.step) : "") << ") {";
        nested(s.body, out, inline_mode);
        out << "}";
        end();
        return;
      }
      case CStmt::Kind::Break: begin(); out << "break;"; end(); return;
      case CStmt::Kind::Continue: begin(); out << "continue;"; end(); return;
      case CStmt::Kind::Return:
        begin();
        out << "return" << (s.rhs ? " " + expr(*s.rhs) : "") << ";";
        end();
        return;
      case CStmt::Kind::Block:
        begin();
        out << "{";
        nested(s.body, out, inline_mode);
        out << "}";
        end();
        return;
    }
  }

  void nested(const std::vector<CStmt>& body, std::ostream& out, bool inline_mode) {
    if (inline_mode) {
      out << " ";
      for (const auto& s : body) stmt(s, out, true);
      return;
    }
    out << "\n";
    block(body, out);
    indent(out);
  }

  int depth_ = 0;

 private:
  std::string file_;
};

}  // namespace

std::string emit_expr(const CExpr& e) { return Printer("").expr(e); }

std::string emit(const CModule& m) {
  std::ostringstream out;
  for (const auto& inc : m.includes) out << "#include <" << inc << ">\n";
  for (const auto& f : m.functions) {
    Printer p(f.file);
    out << "\n// line " << f.line << ": def " << f.name << "\n";
    out << "#line " << f.line << " " << quoted(f.file) << "\n";
    out << f.qualifiers << " " << f.return_type << " " << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i)
      out << (i ? ", " : "") << f.params[i].first << " " << f.params[i].second;
    out << ") {\n";
    p.block(f.body, out);
    out << "}\n";
  }
  return out.str();
}

}  // namespace kiln::transpiler
