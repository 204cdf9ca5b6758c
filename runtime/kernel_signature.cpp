#include "runtime/kernel_signature.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace kiln::runtime {
namespace {

// The source with comments, string and character literals blanked out
// (newlines kept, so offsets and line numbers still match the original).
std::string blank_comments_and_literals(std::string_view s) {
  std::string out(s);
  size_t i = 0, n = s.size();
  while (i < n) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < n && s[i] != '\n') out[i++] = ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      end = end == std::string_view::npos ? n : end + 2;
      for (; i < end; ++i)
        if (s[i] != '\n') out[i] = ' ';
    } else if (s[i] == '"' || s[i] == '\'') {
      char quote = s[i];
      size_t j = i + 1;
      while (j < n && s[j] != quote && s[j] != '\n') j += (s[j] == '\\') ? 2 : 1;
      // Blank the inside, but keep "C" so extern "C" stays recognisable.
      bool is_c_linkage = quote == '"' && j == i + 2 && s[i + 1] == 'C';
      if (!is_c_linkage)
        for (size_t k = i + 1; k < j && k < n; ++k) out[k] = (s[k] == '\n') ? '\n' : ' ';
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string normalise_space(std::string_view t) {
  std::string out;
  bool space = false;
  for (char c : t) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space && is_ident(c) && (is_ident(out.back()) || out.back() == '*' || out.back() == '&')) out += ' ';
    else if (space && (c == '*' || c == '&') && is_ident(out.back())) out += ' ';
    space = false;
    out += c;
  }
  // "float *" -> "float*"
  std::string tight;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ' ' && i + 1 < out.size() && (out[i + 1] == '*' || out[i + 1] == '&')) continue;
    tight += out[i];
  }
  return tight;
}

// Splits "const float* __restrict__ x" into type and name.
KernelParamDecl split_param(std::string_view text) {
  std::string t = normalise_space(text);
  size_t eq = t.find('=');  // default argument
  if (eq != std::string::npos) t = normalise_space(t.substr(0, eq));
  std::string name;
  bool is_array = false;  // `T a[]`, `T a[4]`: decays to a pointer
  while (!t.empty() && t.back() == ']') {
    size_t open = t.rfind('[');
    if (open == std::string::npos) break;
    t = normalise_space(t.substr(0, open));
    is_array = true;
  }
  size_t j = t.size();
  if (j > 0 && t.back() != '*') {
    size_t k = j;
    while (k > 0 && is_ident(t[k - 1])) --k;
    std::string word = t.substr(k);
    static const char* kTypeWords[] = {"int", "float", "double", "char", "short", "long",
                                       "unsigned", "signed", "bool", "size_t", "ptrdiff_t",
                                       "const", "volatile", "__restrict__", "__restrict", "restrict"};
    bool type_word = false;
    for (const char* w : kTypeWords) type_word |= (word == w);
    if (k > 0 && !type_word) {
      name = word;
      t = normalise_space(t.substr(0, k));
    }
  }
  if (is_array) t += "*";
  KernelParamDecl decl = classify_param_type(t);
  decl.name = name;
  return decl;
}

// The named namespaces open at `pos` of blanked source `s`, joined by "::"
// (anonymous ones are skipped: their members are visible from the enclosing
// namespace).
std::string scope_at(const std::string& s, size_t pos) {
  std::vector<std::string> braces;  // per open '{': namespace name, or "\x01" for other braces
  std::string pending;              // namespace name seen, its '{' not yet
  bool in_namespace_head = false;
  for (size_t i = 0; i < pos && i < s.size(); ++i) {
    char c = s[i];
    if (is_ident(c) && (i == 0 || !is_ident(s[i - 1]))) {
      size_t j = i;
      while (j < s.size() && is_ident(s[j])) ++j;
      std::string word = s.substr(i, j - i);
      if (word == "namespace") {
        in_namespace_head = true;
        pending.clear();
      } else if (in_namespace_head && word != "inline") {
        pending += (pending.empty() ? "" : "::") + word;
      }
      i = j - 1;
    } else if (c == '{') {
      braces.push_back(in_namespace_head ? pending : std::string("\x01"));
      in_namespace_head = false;
    } else if (c == '}') {
      if (!braces.empty()) braces.pop_back();
    } else if (c == ';' || c == '=') {  // namespace alias or using namespace
      in_namespace_head = false;
    }
  }
  std::string scope;
  for (const auto& b : braces) {
    if (b.empty() || b == "\x01") continue;
    scope += (scope.empty() ? "" : "::") + b;
  }
  return scope;
}

}  // namespace

KernelParamDecl classify_param_type(std::string_view type_text) {
  KernelParamDecl d;
  std::string t = normalise_space(type_text);
  d.type = t;
  // Qualifiers after the last declarator (`float* __restrict__`, `int* const`)
  // do not change what the parameter is.
  std::string bare = t;
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char* q : {"const", "volatile", "__restrict__", "__restrict", "restrict"}) {
      size_t len = std::char_traits<char>::length(q);
      if (bare.size() > len && bare.compare(bare.size() - len, len, q) == 0 &&
          !is_ident(bare[bare.size() - len - 1])) {
        bare = normalise_space(bare.substr(0, bare.size() - len));
        stripped = true;
      }
    }
  }
  if (!bare.empty() && (bare.back() == '*' || bare.back() == '&')) {
    if (bare.back() == '*') {
      d.kind = ParamKind::Pointer;
      d.size = 8;
    }
    return d;
  }
  // Drop qualifiers that do not change the type's size or kind.
  std::string core;
  size_t i = 0;
  while (i < t.size()) {
    size_t j = i;
    while (j < t.size() && t[j] != ' ') ++j;
    std::string word = t.substr(i, j - i);
    if (word != "const" && word != "volatile" && word != "__restrict__" && word != "__restrict" &&
        word != "__grid_constant__" && word != "std::")
      core += (core.empty() ? "" : " ") + word;
    i = j + 1;
  }
  struct Row {
    const char* spelling;
    ParamKind kind;
    uint32_t size;
  };
  static const Row kRows[] = {
      {"bool", ParamKind::Bool, 1},
      {"char", ParamKind::SignedInt, 1},
      {"signed char", ParamKind::SignedInt, 1},
      {"unsigned char", ParamKind::UnsignedInt, 1},
      {"short", ParamKind::SignedInt, 2},
      {"short int", ParamKind::SignedInt, 2},
      {"unsigned short", ParamKind::UnsignedInt, 2},
      {"unsigned short int", ParamKind::UnsignedInt, 2},
      {"int", ParamKind::SignedInt, 4},
      {"signed", ParamKind::SignedInt, 4},
      {"signed int", ParamKind::SignedInt, 4},
      {"unsigned", ParamKind::UnsignedInt, 4},
      {"unsigned int", ParamKind::UnsignedInt, 4},
      {"long", ParamKind::SignedInt, 8},
      {"long int", ParamKind::SignedInt, 8},
      {"unsigned long", ParamKind::UnsignedInt, 8},
      {"unsigned long int", ParamKind::UnsignedInt, 8},
      {"long long", ParamKind::SignedInt, 8},
      {"long long int", ParamKind::SignedInt, 8},
      {"unsigned long long", ParamKind::UnsignedInt, 8},
      {"unsigned long long int", ParamKind::UnsignedInt, 8},
      {"int8_t", ParamKind::SignedInt, 1},
      {"uint8_t", ParamKind::UnsignedInt, 1},
      {"int16_t", ParamKind::SignedInt, 2},
      {"uint16_t", ParamKind::UnsignedInt, 2},
      {"int32_t", ParamKind::SignedInt, 4},
      {"uint32_t", ParamKind::UnsignedInt, 4},
      {"int64_t", ParamKind::SignedInt, 8},
      {"uint64_t", ParamKind::UnsignedInt, 8},
      {"size_t", ParamKind::UnsignedInt, 8},
      {"ptrdiff_t", ParamKind::SignedInt, 8},
      {"cudaTextureObject_t", ParamKind::UnsignedInt, 8},   // kiln.cuda.texture's objects
      {"cudaSurfaceObject_t", ParamKind::UnsignedInt, 8},
      {"float", ParamKind::Float, 4},
      {"double", ParamKind::Float, 8},
      {"__half", ParamKind::Float, 2},
      {"half", ParamKind::Float, 2},
      {"kiln::half", ParamKind::Float, 2},
      {"complex<float>", ParamKind::Complex, 8},
      {"complex<double>", ParamKind::Complex, 16},
      {"kiln::complex<float>", ParamKind::Complex, 8},
      {"kiln::complex<double>", ParamKind::Complex, 16},
  };
  if (core.rfind("std::", 0) == 0) core = core.substr(5);
  for (const auto& row : kRows) {
    if (core == row.spelling) {
      d.kind = row.kind;
      d.size = row.size;
      break;
    }
  }
  return d;
}

std::vector<KernelDecl> scan_kernels(std::string_view source) {
  std::string s = blank_comments_and_literals(source);
  std::vector<KernelDecl> kernels;
  const std::string key = "__global__";
  size_t pos = 0;
  while ((pos = s.find(key, pos)) != std::string::npos) {
    size_t after = pos + key.size();
    if ((pos > 0 && is_ident(s[pos - 1])) || (after < s.size() && is_ident(s[after]))) {
      pos = after;
      continue;
    }
    // Look back to the previous statement boundary for `template` and extern "C".
    size_t back = pos;
    int angle = 0;
    while (back > 0) {
      char c = s[back - 1];
      if (c == '>') ++angle;
      else if (c == '<') --angle;
      else if (angle == 0 && (c == ';' || c == '}' || c == '{')) break;
      --back;
    }
    std::string prefix = s.substr(back, pos - back);
    KernelDecl decl;
    decl.is_template = prefix.find("template") != std::string::npos;
    decl.is_extern_c = prefix.find("extern") != std::string::npos;
    if (!decl.is_extern_c) {  // inside an extern "C" { ... } block?
      size_t open = s.rfind("extern", pos);
      while (open != std::string::npos) {
        size_t brace = s.find_first_not_of(" \t\r\n", open + 6);
        if (brace != std::string::npos && s.compare(brace, 3, "\"C\"") == 0) {
          size_t b = s.find_first_not_of(" \t\r\n", brace + 3);
          if (b != std::string::npos && s[b] == '{') {
            int depth = 0;
            for (size_t k = b; k < pos; ++k) depth += (s[k] == '{') - (s[k] == '}');
            decl.is_extern_c = depth > 0;
          }
        }
        break;
      }
    }
    // The name: the identifier right before the first '(' that is not part of
    // __launch_bounds__(...) / __attribute__((...)).
    size_t i = after;
    size_t paren = std::string::npos;
    while (i < s.size()) {
      if (s[i] == '(') {
        size_t k = i;
        while (k > after && std::isspace(static_cast<unsigned char>(s[k - 1]))) --k;
        size_t start = k;
        while (start > after && is_ident(s[start - 1])) --start;
        std::string word = s.substr(start, k - start);
        if (word == "__launch_bounds__" || word == "__attribute__" || word == "__align__" ||
            word == "alignas" || word == "__declspec") {
          int depth = 0;
          for (; i < s.size(); ++i) {
            depth += (s[i] == '(') - (s[i] == ')');
            if (depth == 0) break;
          }
          ++i;
          continue;
        }
        decl.name = word;
        paren = i;
        break;
      }
      if (s[i] == ';' || s[i] == '{') break;
      ++i;
    }
    if (paren == std::string::npos || decl.name.empty()) {
      pos = after;
      continue;
    }
    decl.scope = scope_at(s, pos);
    decl.line = 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(paren), '\n'));
    int depth = 0, angles = 0;
    size_t start = paren + 1;
    for (i = paren; i < s.size(); ++i) {
      char c = s[i];
      if (c == '(') {
        if (depth++ == 0) start = i + 1;
      } else if (c == ')') {
        if (--depth == 0) {
          std::string text = normalise_space(s.substr(start, i - start));
          if (!text.empty() && text != "void") decl.params.push_back(split_param(s.substr(start, i - start)));
          break;
        }
      } else if (c == '<') {
        ++angles;
      } else if (c == '>') {
        --angles;
      } else if (c == ',' && depth == 1 && angles == 0) {
        decl.params.push_back(split_param(s.substr(start, i - start)));
        start = i + 1;
      }
    }
    kernels.push_back(std::move(decl));
    pos = i;
  }
  return kernels;
}

}  // namespace kiln::runtime
