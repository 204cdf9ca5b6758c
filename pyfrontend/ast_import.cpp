// Imports Python `ast` trees into the transpiler's AST (transpiler/ast.h):
// node kinds, spans in the user's file, and free names resolved by value
// (Note [Captured globals] in jit_import.h). Knows nothing of types.
#include <pybind11/stl.h>

#include <climits>
#include <map>
#include <set>
#include <unordered_map>

#include "pyfrontend/bindings.h"
#include "pyfrontend/jit_import.h"

namespace kiln::py_bind {
namespace {

using namespace transpiler;

std::string cls(py::handle node) { return py::str(node.attr("__class__").attr("__name__")); }

int opt_int(py::handle node, const char* attr) {
  py::object v = py::getattr(node, attr, py::none());
  return v.is_none() ? 0 : v.cast<int>();
}

const std::unordered_map<std::string, std::string>& unsupported_statements() {
  static const std::unordered_map<std::string, std::string> m = {
      {"Try", "try"}, {"TryStar", "try"}, {"With", "with"}, {"AsyncWith", "async with"},
      {"FunctionDef", "a nested def"}, {"AsyncFunctionDef", "a nested def"}, {"ClassDef", "class"},
      {"Delete", "del"}, {"Global", "global"}, {"Nonlocal", "nonlocal"}, {"Import", "import"},
      {"ImportFrom", "import"}, {"Raise", "raise"}, {"AsyncFor", "async for"}, {"Match", "match"},
      {"TypeAlias", "type"}};
  return m;
}

const std::unordered_map<std::string, std::string>& unsupported_expressions() {
  static const std::unordered_map<std::string, std::string> m = {
      {"List", "a list"}, {"Dict", "a dict"}, {"Set", "a set"}, {"ListComp", "a list comprehension"},
      {"SetComp", "a set comprehension"}, {"DictComp", "a dict comprehension"},
      {"GeneratorExp", "a generator expression"}, {"Lambda", "lambda"}, {"JoinedStr", "an f-string"},
      {"FormattedValue", "an f-string"}, {"NamedExpr", ":="}, {"Await", "await"}, {"Yield", "yield"},
      {"YieldFrom", "yield from"}, {"Starred", "*unpacking"}, {"Slice", "a slice"}};
  return m;
}

BinOp bin_op(const std::string& c) {
  static const std::unordered_map<std::string, BinOp> m = {
      {"Add", BinOp::Add}, {"Sub", BinOp::Sub}, {"Mult", BinOp::Mul}, {"Div", BinOp::Div},
      {"FloorDiv", BinOp::FloorDiv}, {"Mod", BinOp::Mod}, {"Pow", BinOp::Pow}, {"LShift", BinOp::LShift},
      {"RShift", BinOp::RShift}, {"BitAnd", BinOp::BitAnd}, {"BitOr", BinOp::BitOr}, {"BitXor", BinOp::BitXor},
      {"MatMult", BinOp::MatMul}};
  return m.at(c);
}

CmpOp cmp_op(const std::string& c) {
  static const std::unordered_map<std::string, CmpOp> m = {
      {"Eq", CmpOp::Eq}, {"NotEq", CmpOp::NotEq}, {"Lt", CmpOp::Lt}, {"LtE", CmpOp::LtE}, {"Gt", CmpOp::Gt},
      {"GtE", CmpOp::GtE}, {"Is", CmpOp::Is}, {"IsNot", CmpOp::IsNot}, {"In", CmpOp::In}, {"NotIn", CmpOp::NotIn}};
  return m.at(c);
}

class Importer {
 public:
  explicit Importer(ImportedModule& out) : out_(out) {
    py::module_ jit = py::module_::import("kiln.jit._resolve");
    classify_ = jit.attr("classify");
    function_ast_ = py::module_::import("kiln.jit._source").attr("function_ast");
  }

  int import_function(py::handle func, py::handle source, bool device) {
    auto it = index_.find(func.ptr());
    if (it != index_.end()) return it->second;
    // Functions defined next to a kernel whose text was given (source=) are
    // found in that text too.
    std::string file = py::str(func.attr("__code__").attr("co_filename"));
    if (!source.is_none()) sources_[file] = py::reinterpret_borrow<py::object>(source);
    else if (auto s = sources_.find(file); s != sources_.end()) source = s->second;
    py::tuple info = function_ast_(func, source);
    int index = static_cast<int>(out_.module->functions.size());
    index_[func.ptr()] = index;
    keep_.push_back(py::reinterpret_borrow<py::object>(func));
    out_.module->functions.emplace_back();
    FunctionDef fd;
    fd.device = device;
    fd.file = info[1].cast<std::string>();
    fd.lines = info[2].cast<std::vector<std::string>>();
    fd.first_line = info[3].cast<int>();
    Scope scope;
    scope.func = func;
    scope.line_offset = fd.first_line - 1;
    scope.indent = info[4].cast<int>();
    scope.globals = func.attr("__globals__");
    py::object code = func.attr("__code__");
    py::object closure = func.attr("__closure__");
    py::tuple freevars = code.attr("co_freevars");
    for (size_t i = 0; i < freevars.size(); ++i)
      scope.cells[freevars[i].cast<std::string>()] = py::reinterpret_borrow<py::object>(py::tuple(closure)[i]);
    py::handle node = info[0];
    fd.name = node.attr("name").cast<std::string>();
    fd.span = span(node, scope);
    py::handle args = node.attr("args");
    for (const char* field : {"posonlyargs", "args"})
      for (py::handle a : args.attr(field)) fd.params.push_back({a.attr("arg").cast<std::string>(), span(a, scope)});
    auto bad = [&](py::handle a) {
      if (!fd.has_defaults) {
        fd.has_defaults = true;
        fd.bad_signature = span(a, scope);
      }
    };
    if (!args.attr("vararg").is_none()) bad(args.attr("vararg"));
    if (!args.attr("kwarg").is_none()) bad(args.attr("kwarg"));
    for (py::handle a : args.attr("kwonlyargs")) bad(a);
    for (py::handle d : args.attr("defaults")) bad(d);
    for (const auto& p : fd.params) scope.locals.insert(p.name);
    collect_locals(node.attr("body"), scope.locals);
    out_.key_text += "def|" + fd.file + "|" + std::to_string(fd.first_line) + "|" + std::to_string(scope.indent) + "|" +
                     (device ? "d" : "k") + "\n";
    for (const auto& l : fd.lines) out_.key_text += l + "\n";
    fd.body = block(node.attr("body"), scope);
    number_nodes(fd);
    out_.module->functions[static_cast<size_t>(index)] = std::move(fd);
    return index;
  }

 private:
  struct Scope {
    py::handle func;
    int line_offset = 0, indent = 0;
    py::object globals;
    std::map<std::string, py::object> cells;
    std::set<std::string> locals;
  };

  Span span(py::handle node, const Scope& s) {
    Span sp;
    sp.line = opt_int(node, "lineno") + s.line_offset;
    sp.col = opt_int(node, "col_offset") + s.indent;
    sp.end_line = opt_int(node, "end_lineno") + s.line_offset;
    sp.end_col = opt_int(node, "end_col_offset") + s.indent;
    return sp;
  }

  static void collect_target(py::handle t, std::set<std::string>& out) {
    std::string c = cls(t);
    if (c == "Name") out.insert(t.attr("id").cast<std::string>());
    else if (c == "Tuple" || c == "List")
      for (py::handle e : t.attr("elts")) collect_target(e, out);
  }
  static void collect_locals(py::handle body, std::set<std::string>& out) {
    for (py::handle s : body) {
      std::string c = cls(s);
      if (c == "Assign") {
        for (py::handle t : s.attr("targets")) collect_target(t, out);
      } else if (c == "AugAssign" || c == "AnnAssign" || c == "For") {
        collect_target(s.attr("target"), out);
      }
      for (const char* field : {"body", "orelse"})
        if (py::hasattr(s, field)) collect_locals(s.attr(field), out);
    }
  }

  Block block(py::handle body, Scope& s) {
    Block out;
    for (py::handle st : body) out.push_back(stmt(st, s));
    return out;
  }

  StmtPtr stmt(py::handle node, Scope& s) {
    std::string c = cls(node);
    Span sp = span(node, s);
    if (c == "Assign" || c == "AnnAssign") {
      auto st = make_stmt(StmtKind::Assign, sp);
      if (c == "Assign") {
        for (py::handle t : node.attr("targets")) st->targets.push_back(expr(t, s));
      } else {
        if (node.attr("value").is_none()) return make_stmt(StmtKind::Pass, sp);
        st->targets.push_back(expr(node.attr("target"), s));
      }
      st->value = expr(node.attr("value"), s);
      return st;
    }
    if (c == "AugAssign") {
      auto st = make_stmt(StmtKind::AugAssign, sp);
      st->targets.push_back(expr(node.attr("target"), s));
      st->op = bin_op(cls(node.attr("op")));
      st->value = expr(node.attr("value"), s);
      return st;
    }
    if (c == "Expr") {
      auto st = make_stmt(StmtKind::ExprStmt, sp);
      st->value = expr(node.attr("value"), s);
      return st;
    }
    if (c == "If") {
      py::object value;
      std::string dotted;
      if (try_static(node.attr("test"), s, value, dotted) && constant_like(value) && !PyType_Check(value.ptr())) {
        // Note [Compile-time calls]: only the branch taken is imported.
        int truth = PyObject_IsTrue(value.ptr());
        if (truth < 0) throw py::error_already_set();
        bool taken = truth == 1;
        auto st = make_stmt(StmtKind::If, sp);
        st->value = make_expr(ExprKind::Const, span(node.attr("test"), s));
        st->value->value.kind = ConstValue::Kind::Bool;
        st->value->value.b = taken;
        (taken ? st->body : st->orelse) = block(node.attr(taken ? "body" : "orelse"), s);
        return st;
      }
    }
    if (c == "If" || c == "While") {
      auto st = make_stmt(c == "If" ? StmtKind::If : StmtKind::While, sp);
      st->value = expr(node.attr("test"), s);
      st->body = block(node.attr("body"), s);
      st->orelse = block(node.attr("orelse"), s);
      return st;
    }
    if (c == "For") {
      auto st = make_stmt(StmtKind::For, sp);
      st->targets.push_back(expr(node.attr("target"), s));
      st->value = expr(node.attr("iter"), s);
      st->body = block(node.attr("body"), s);
      st->orelse = block(node.attr("orelse"), s);
      return st;
    }
    if (c == "Return") {
      auto st = make_stmt(StmtKind::Return, sp);
      if (!node.attr("value").is_none()) st->value = expr(node.attr("value"), s);
      return st;
    }
    if (c == "Assert") {
      auto st = make_stmt(StmtKind::Assert, sp);
      st->value = expr(node.attr("test"), s);
      if (!node.attr("msg").is_none()) st->msg = expr(node.attr("msg"), s);
      return st;
    }
    if (c == "Break") return make_stmt(StmtKind::Break, sp);
    if (c == "Continue") return make_stmt(StmtKind::Continue, sp);
    if (c == "Pass") return make_stmt(StmtKind::Pass, sp);
    auto st = make_stmt(StmtKind::Unsupported, sp);
    auto it = unsupported_statements().find(c);
    st->text = it != unsupported_statements().end() ? it->second : c;
    return st;
  }

  ConstValue constant(py::handle v, bool* ok) {
    ConstValue cv;
    *ok = true;
    PyObject* o = v.ptr();
    if (o == Py_None) {
      cv.kind = ConstValue::Kind::None;
    } else if (PyBool_Check(o)) {
      cv.kind = ConstValue::Kind::Bool;
      cv.b = o == Py_True;
    } else if (PyLong_Check(o)) {
      cv.kind = ConstValue::Kind::Int;
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (PyErr_Occurred()) {
          PyErr_Clear();
          *ok = false;
        }
        cv.int_unsigned = true;
        x = static_cast<long long>(u);
      } else if (overflow < 0) {
        *ok = false;
      }
      cv.i = x;
    } else if (PyFloat_Check(o)) {
      cv.kind = ConstValue::Kind::Float;
      cv.f = PyFloat_AsDouble(o);
    } else if (PyComplex_Check(o)) {
      cv.kind = ConstValue::Kind::Complex;
      cv.f = PyComplex_RealAsDouble(o);
      cv.imag = PyComplex_ImagAsDouble(o);
    } else if (PyUnicode_Check(o)) {
      cv.kind = ConstValue::Kind::String;
      cv.s = v.cast<std::string>();
    } else {
      *ok = false;
    }
    return cv;
  }

  // The value a Name (not local) or an attribute chain through modules
  // reads, recording the capture; false when `node` is neither.
  bool static_value(py::handle node, Scope& s, py::object& value, Capture& cap, std::string& dotted) {
    std::string c = cls(node);
    if (c == "Name") {
      std::string id = node.attr("id").cast<std::string>();
      if (s.locals.count(id)) return false;
      dotted = id;
      cap.name = id;
      cap.key = py::str(id);
      PyUnicode_InternInPlace(&cap.key.ptr());
      auto cell = s.cells.find(id);
      if (cell != s.cells.end()) {
        cap.where = Capture::Where::Cell;
        cap.container = cell->second;
        PyObject* v = PyCell_Get(cell->second.ptr());
        if (!v) {
          PyErr_Clear();
          return false;
        }
        value = py::reinterpret_steal<py::object>(v);
        return true;
      }
      PyObject* g = PyDict_GetItemString(s.globals.ptr(), id.c_str());
      if (g) {
        cap.where = Capture::Where::Globals;
        cap.container = s.globals;
        value = py::reinterpret_borrow<py::object>(g);
        return true;
      }
      py::object b = py::module_::import("builtins").attr("__dict__");
      PyObject* bv = PyDict_GetItemString(b.ptr(), id.c_str());
      if (bv) {
        cap.where = Capture::Where::Builtins;
        cap.container = b;
        cap.shadow = s.globals;
        value = py::reinterpret_borrow<py::object>(bv);
        return true;
      }
      return false;
    }
    if (c == "Attribute") {
      py::object base;
      if (!static_value(node.attr("value"), s, base, cap, dotted)) return false;
      if (!PyModule_Check(base.ptr())) return object_attribute(node, base, cap, dotted, value);
      std::string attr = node.attr("attr").cast<std::string>();
      dotted += "." + attr;
      cap.attrs.push_back(attr);
      PyObject* v = PyObject_GetAttrString(base.ptr(), attr.c_str());
      if (!v) {
        PyErr_Clear();
        value = py::none();
        missing_attr_ = true;
        return true;
      }
      value = py::reinterpret_steal<py::object>(v);
      return true;
    }
    return false;
  }

  // Note [Object attributes]
  // `const.x`, where `const` is a global or closure value of a plain Python
  // class (not a module, builtin, dtype or function), reads the attribute
  // when the kernel is imported, as CuPy does: a number (or a dtype, or a
  // function) found there is a captured value like any other, so a later
  // `const.x = 11` compiles the kernel again. Only an attribute that reads
  // as the same object twice is taken (a stored value, not a property
  // computing a new one, which would make every launch look changed).
  bool object_attribute(py::handle node, const py::object& base, Capture& cap, std::string& dotted, py::object& value) {
    if (py::tuple(classify_(base))[0].cast<std::string>() != "opaque") return false;
    std::string attr = node.attr("attr").cast<std::string>();
    PyObject* first = PyObject_GetAttrString(base.ptr(), attr.c_str());
    if (!first) {
      PyErr_Clear();
      return false;
    }
    py::object v = py::reinterpret_steal<py::object>(first);
    PyObject* again = PyObject_GetAttrString(base.ptr(), attr.c_str());
    if (!again) {
      PyErr_Clear();
      return false;
    }
    bool stable = again == first;
    Py_DECREF(again);
    if (!stable || py::tuple(classify_(v))[0].cast<std::string>() == "opaque") return false;
    dotted += "." + attr;
    cap.attrs.push_back(attr);
    value = v;
    return true;
  }

  ExprPtr global(py::handle node, Scope& s, bool* handled) {
    py::object value;
    Capture cap;
    std::string dotted;
    missing_attr_ = false;
    *handled = false;
    if (!static_value(node, s, value, cap, dotted)) {
      // An attribute of a compile-time call's result (Note [Compile-time calls]).
      if (cls(node) == "Attribute" && try_static(node, s, value, dotted)) {
        *handled = true;
        return from_object(value, dotted, span(node, s));
      }
      return nullptr;
    }
    // An attribute of something that is not a module stays an Attribute node
    // over the longest module chain (threadIdx.x: Global(threadIdx) then .x).
    *handled = true;
    if (missing_attr_) {
      auto e = make_expr(ExprKind::Global, span(node, s));
      e->global.kind = GlobalValue::Kind::Opaque;
      e->global.name = dotted;
      e->global.value.s = "missing attribute (no such name in the module)";
      return e;
    }
    cap.value = value;
    out_.captures.push_back(std::move(cap));
    return from_object(value, dotted, span(node, s));
  }

  // Note [Compile-time calls]
  // As in CuPy, a call whose callee and arguments are all known when the
  // kernel is imported is made then, in Python, and its result is what the
  // kernel reads: `cupy.dtype(t).type(cupy.inf)`, a factory `g(10)` that
  // returns a device function, `g(step * 2)` recursing over a constant.
  // Callees so called are plain Python functions (not kiln.jit ones) and
  // other non-kernel callables (classes such as numpy.dtype); kiln.jit
  // builtins, dtype casts and math functions stay calls the kernel makes. A
  // call that raises, or returns None, is left to the transpiler (a plain
  // function then becomes a device function). An `if` whose test is such a
  // value imports only the branch it takes, so dead code may name what the
  // kernel cannot build (the recursion's last step). The callee and
  // arguments are captured (Note [Captured globals]); the call is assumed
  // to give the same result for the same inputs.
  // static_eval, keeping its captures only when it succeeds (the normal path captures the names again).
  bool try_static(py::handle node, Scope& s, py::object& out, std::string& dotted) {
    size_t captures = out_.captures.size(), key = out_.key_text.size();
    if (static_eval(node, s, out, dotted)) return true;
    out_.captures.erase(out_.captures.begin() + static_cast<std::ptrdiff_t>(captures), out_.captures.end());
    out_.key_text.resize(key);
    return false;
  }

  bool static_eval(py::handle node, Scope& s, py::object& out, std::string& dotted, int depth = 0) {
    if (depth > 64) return false;
    std::string c = cls(node);
    try {
      if (c == "Constant") {
        out = node.attr("value");
        dotted = py::repr(out);
        return true;
      }
      if (c == "Name" || c == "Attribute") {
        Capture cap;
        missing_attr_ = false;
        if (static_value(node, s, out, cap, dotted)) {
          if (missing_attr_) return false;
          cap.value = out;
          out_.key_text += "cap|" + dotted + "=" + std::string(py::repr(out)).substr(0, 200) + "\n";
          out_.captures.push_back(std::move(cap));
          return true;
        }
        if (c == "Name") return false;
        py::object base;
        if (cls(node.attr("value")) != "Call" || !static_eval(node.attr("value"), s, base, dotted, depth + 1)) return false;
        std::string attr = node.attr("attr").cast<std::string>();
        out = base.attr(attr.c_str());
        dotted += "." + attr;
        return true;
      }
      if (c == "BinOp" || c == "UnaryOp" || (c == "Compare" && py::len(node.attr("ops")) == 1)) {
        static const std::unordered_map<std::string, const char*> ops = {
            {"Add", "add"}, {"Sub", "sub"}, {"Mult", "mul"}, {"Div", "truediv"}, {"FloorDiv", "floordiv"},
            {"Mod", "mod"}, {"Pow", "pow"}, {"LShift", "lshift"}, {"RShift", "rshift"}, {"BitAnd", "and_"},
            {"BitOr", "or_"}, {"BitXor", "xor"}, {"USub", "neg"}, {"UAdd", "pos"}, {"Not", "not_"},
            {"Invert", "invert"}, {"Eq", "eq"}, {"NotEq", "ne"}, {"Lt", "lt"}, {"LtE", "le"}, {"Gt", "gt"},
            {"GtE", "ge"}, {"Is", "is_"}, {"IsNot", "is_not"}};
        std::vector<py::object> args;
        std::string op_name = c == "Compare" ? cls(node.attr("ops")[py::int_(0)]) : cls(node.attr("op"));
        auto it = ops.find(op_name);
        if (it == ops.end()) return false;
        std::vector<py::handle> operands;
        if (c == "BinOp") operands = {node.attr("left"), node.attr("right")};
        else if (c == "UnaryOp") operands = {node.attr("operand")};
        else operands = {node.attr("left"), node.attr("comparators")[py::int_(0)]};
        std::string text;
        for (py::handle o : operands) {
          py::object v;
          std::string d;
          if (!static_eval(o, s, v, d, depth + 1) || !constant_like(v)) return false;
          args.push_back(v);
          text += (text.empty() ? "" : " " + op_name + " ") + d;
        }
        py::object fn = py::module_::import("operator").attr(it->second);
        out = args.size() == 1 ? fn(args[0]) : fn(args[0], args[1]);
        dotted = "(" + text + ")";
        return true;
      }
      if (c == "Call") {
        py::object callee;
        std::string d;
        if (!static_eval(node.attr("func"), s, callee, d, depth + 1) || !compile_time_callee(callee)) return false;
        py::list args;
        py::dict kwargs;
        std::string text = d + "(";
        for (py::handle a : node.attr("args")) {
          py::object v;
          std::string ad;
          if (cls(a) == "Starred" || !static_eval(a, s, v, ad, depth + 1)) return false;
          args.append(v);
          text += ad + ",";
        }
        for (py::handle k : node.attr("keywords")) {
          py::object v;
          std::string kd;
          if (k.attr("arg").is_none() || !static_eval(k.attr("value"), s, v, kd, depth + 1)) return false;
          kwargs[k.attr("arg")] = v;
          text += k.attr("arg").cast<std::string>() + "=" + kd + ",";
        }
        out = callee(*py::tuple(args), **kwargs);
        if (out.is_none()) return false;
        dotted = text + ")";
        out_.key_text += "call|" + dotted + "=" + std::string(py::repr(out)).substr(0, 200) + "\n";
        return true;
      }
    } catch (py::error_already_set&) {
      return false;
    }
    return false;
  }

  // A value compile-time operators may combine: numbers, bools, None, strings, NumPy scalars, dtypes and types.
  static bool constant_like(py::handle v) {
    PyObject* o = v.ptr();
    static py::object generic = py::module_::import("numpy").attr("generic");
    static py::object dtype = py::module_::import("numpy").attr("dtype");
    return o == Py_None || PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) ||
           PyUnicode_Check(o) || PyType_Check(o) || py::isinstance(v, generic) || py::isinstance(v, dtype);
  }

  // Note [Compile-time calls]: what is called when the kernel is imported.
  bool compile_time_callee(py::handle f) {
    if (py::hasattr(f, "_kiln_jit_function") || py::hasattr(f, "_kiln_builtin")) return false;
    std::string kind = py::tuple(classify_(f))[0].cast<std::string>();
    return kind == "opaque" || (kind == "function" && PyFunction_Check(f.ptr()));
  }

  ExprPtr from_object(const py::object& value, const std::string& dotted, Span sp) {
    auto e = make_expr(ExprKind::Global, sp);
    GlobalValue& g = e->global;
    py::tuple k = classify_(value);
    std::string kind = k[0].cast<std::string>();
    std::string key = dotted + "=" + kind;
    if (kind == "builtin" || kind == "module") {
      g.kind = kind == "builtin" ? GlobalValue::Kind::Builtin : GlobalValue::Kind::Module;
      g.name = k[1].cast<std::string>();
      key += ":" + g.name;
    } else if (kind == "constant") {
      bool ok = true;
      g.kind = GlobalValue::Kind::Constant;
      g.value = constant(k[1], &ok);
      if (!k[2].is_none()) {
        g.typed = true;
        g.dtype = to_dtype(k[2]);
      }
      key += ":" + std::string(py::repr(k[1])) + ":" + std::string(py::str(k[2]));
      if (!ok) {
        g.kind = GlobalValue::Kind::Opaque;
        g.name = dotted;
        g.value.s = "too large an int";
      }
    } else if (kind == "dtype") {
      g.kind = GlobalValue::Kind::DType;
      g.dtype = to_dtype(k[1]);
      key += ":" + k[1].cast<std::string>();
    } else if (kind == "function") {
      g.kind = GlobalValue::Kind::Function;
      g.function = import_function(k[1], py::none(), true);
      key += ":" + std::to_string(g.function);
    } else {
      g.kind = GlobalValue::Kind::Opaque;
      g.name = dotted;
      g.value.s = k[1].cast<std::string>();
    }
    out_.key_text += "cap|" + key + "\n";
    return e;
  }

  ExprPtr expr(py::handle node, Scope& s) {
    std::string c = cls(node);
    Span sp = span(node, s);
    if (c == "Name" || c == "Attribute") {
      bool handled = false;
      if (ExprPtr g = global(node, s, &handled); handled) return g;
      if (c == "Name") {
        auto e = make_expr(ExprKind::Name, sp);
        e->text = node.attr("id").cast<std::string>();
        return e;
      }
      auto e = make_expr(ExprKind::Attribute, sp);
      e->text = node.attr("attr").cast<std::string>();
      e->operands.push_back(expr(node.attr("value"), s));
      return e;
    }
    if (c == "Constant") {
      bool ok = true;
      auto e = make_expr(ExprKind::Const, sp);
      e->value = constant(node.attr("value"), &ok);
      if (!ok) {
        auto u = make_expr(ExprKind::Unsupported, sp);
        u->text = "this constant (" + std::string(py::repr(node.attr("value"))).substr(0, 40) + ")";
        return u;
      }
      return e;
    }
    if (c == "Subscript") {
      auto e = make_expr(ExprKind::Subscript, sp);
      e->operands.push_back(expr(node.attr("value"), s));
      e->operands.push_back(expr(node.attr("slice"), s));
      return e;
    }
    if (c == "Call") {
      py::object value;
      std::string dotted;
      if (try_static(node, s, value, dotted)) return from_object(value, dotted, sp);
      auto e = make_expr(ExprKind::Call, sp);
      e->operands.push_back(expr(node.attr("func"), s));
      for (py::handle a : node.attr("args")) e->operands.push_back(expr(a, s));
      for (py::handle k : node.attr("keywords")) {
        if (k.attr("arg").is_none()) {
          auto u = make_expr(ExprKind::Unsupported, span(k, s));
          u->text = "**keyword unpacking";
          return u;
        }
        e->keywords.push_back({k.attr("arg").cast<std::string>(), expr(k.attr("value"), s), span(k, s)});
      }
      return e;
    }
    if (c == "BinOp") {
      auto e = make_expr(ExprKind::BinOp, sp);
      e->bin_op = bin_op(cls(node.attr("op")));
      e->operands.push_back(expr(node.attr("left"), s));
      e->operands.push_back(expr(node.attr("right"), s));
      return e;
    }
    if (c == "UnaryOp") {
      auto e = make_expr(ExprKind::UnaryOp, sp);
      std::string op = cls(node.attr("op"));
      e->unary_op = op == "USub" ? UnaryOp::Neg : op == "UAdd" ? UnaryOp::Pos : op == "Not" ? UnaryOp::Not : UnaryOp::Invert;
      e->operands.push_back(expr(node.attr("operand"), s));
      return e;
    }
    if (c == "BoolOp") {
      auto e = make_expr(ExprKind::BoolOp, sp);
      e->bool_op = cls(node.attr("op")) == "And" ? BoolOp::And : BoolOp::Or;
      for (py::handle v : node.attr("values")) e->operands.push_back(expr(v, s));
      return e;
    }
    if (c == "Compare") {
      auto e = make_expr(ExprKind::Compare, sp);
      e->operands.push_back(expr(node.attr("left"), s));
      for (py::handle o : node.attr("ops")) e->cmp_ops.push_back(cmp_op(cls(o)));
      for (py::handle v : node.attr("comparators")) e->operands.push_back(expr(v, s));
      return e;
    }
    if (c == "IfExp") {
      auto e = make_expr(ExprKind::IfExp, sp);
      e->operands.push_back(expr(node.attr("test"), s));
      e->operands.push_back(expr(node.attr("body"), s));
      e->operands.push_back(expr(node.attr("orelse"), s));
      return e;
    }
    if (c == "Tuple") {
      auto e = make_expr(ExprKind::Tuple, sp);
      for (py::handle v : node.attr("elts")) e->operands.push_back(expr(v, s));
      return e;
    }
    auto e = make_expr(ExprKind::Unsupported, sp);
    auto it = unsupported_expressions().find(c);
    e->text = it != unsupported_expressions().end() ? it->second : c;
    return e;
  }

  ImportedModule& out_;
  py::object classify_, function_ast_;
  std::map<PyObject*, int> index_;
  std::map<std::string, py::object> sources_;  // file -> text given with source=
  std::vector<py::object> keep_;
  bool missing_attr_ = false;
};

}  // namespace

ImportedModule import_kernel(py::handle func, py::handle source, bool device) {
  ImportedModule out;
  out.module = std::make_shared<transpiler::Module>();
  Importer(out).import_function(func, source, device);
  return out;
}

bool captures_unchanged(const std::vector<Capture>& captures) {
  for (const auto& c : captures) {
    PyObject* v = nullptr;
    if (c.where == Capture::Where::Builtins && PyDict_GetItemWithError(c.shadow.ptr(), c.key.ptr())) return false;
    switch (c.where) {
      case Capture::Where::Cell: v = PyCell_GET(c.container.ptr()); break;
      case Capture::Where::Globals: case Capture::Where::Builtins:
        v = PyDict_GetItemWithError(c.container.ptr(), c.key.ptr());
        break;
    }
    if (!v) {
      PyErr_Clear();
      return false;
    }
    Py_INCREF(v);
    for (const auto& a : c.attrs) {
      PyObject* next = PyObject_GetAttrString(v, a.c_str());
      Py_DECREF(v);
      if (!next) {
        PyErr_Clear();
        return false;
      }
      v = next;
    }
    bool same = v == c.value.ptr();
    Py_DECREF(v);
    if (!same) return false;
  }
  return true;
}

}  // namespace kiln::py_bind
