#include "transpiler/diagnostics.h"

namespace kiln::transpiler {
namespace {

// Expands tabs so the caret lines up with what a terminal shows.
std::string untab(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') out += std::string(8 - out.size() % 8, ' ');
    else out += c;
  }
  return out;
}

int display_col(const std::string& line, int col) {
  int n = 0;
  for (int i = 0; i < col && i < static_cast<int>(line.size()); ++i)
    n = line[static_cast<size_t>(i)] == '\t' ? (n / 8 + 1) * 8 : n + 1;
  return col > static_cast<int>(line.size()) ? n + (col - static_cast<int>(line.size())) : n;
}

void quote(std::string& out, const FunctionDef& f, const Span& s) {
  int index = s.line - f.first_line;
  if (index < 0 || index >= static_cast<int>(f.lines.size())) return;
  const std::string& line = f.lines[static_cast<size_t>(index)];
  out += "    " + untab(line) + "\n";
  int start = display_col(line, s.col);
  int end = (s.end_line == s.line && s.end_col > s.col) ? display_col(line, s.end_col) : start + 1;
  out += "    " + std::string(static_cast<size_t>(start), ' ') + "^" +
         std::string(static_cast<size_t>(end - start - 1 > 0 ? end - start - 1 : 0), '~') + "\n";
}

std::string where(const FunctionDef& f, const Span& s) {
  return f.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col + 1) + ": ";
}

}  // namespace

std::string render(const Diagnostic& d, const FunctionDef& f) {
  std::string out = where(f, d.span) + d.message + "\n";
  quote(out, f, d.span);
  for (const auto& n : d.notes) {
    out += where(f, n.span) + "note: " + n.message + "\n";
    quote(out, f, n.span);
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string render(const Diagnostic& d, const Module& m) {
  size_t i = d.function >= 0 ? static_cast<size_t>(d.function) : 0;
  if (i >= m.functions.size()) return d.message;
  return render(d, m.functions[i]);
}

}  // namespace kiln::transpiler
