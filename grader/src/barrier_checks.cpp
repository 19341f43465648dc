// The divergent-barrier stage (barrier_checks.hpp). The code that
// strip_source() leaves is cut into tokens, brackets are matched, and from each
// barrier the scan walks outward: through the statement it is in, to what owns
// that statement (an if's or loop's head, an else, a do, a ?:, a block), and
// so on up to the function's body. Each construct on the way whose condition
// depends on the thread makes the barrier divergent. Then the function's
// returns (and the breaks and continues of the loops around the barrier) are
// walked the same way: one that such a condition guards sends some threads
// past the barrier.
#include "barrier_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
// The longest condition or call shown in a message.
constexpr std::size_t kMaxShown = 72;

const char* const kBlockWhy =
    "a barrier inside a branch that only some threads of the block take is undefined behaviour (CUDA C++ "
    "Programming Guide, __syncthreads): the block can hang, or pass with wrong results; on sm_70 and "
    "later it often still gives the right answer, so tests do not show it";
const char* const kWarpWhy =
    "a __syncwarp() whose mask names lanes that do not reach it is undefined behaviour (CUDA C++ Programming "
    "Guide, __syncwarp): the warp can hang, or pass with wrong results; on sm_70 and later it often still "
    "gives the right answer, so tests do not show it";

/// How far a value depends on the thread that computes it: not at all, only
/// through its warp (threadIdx.x / 32: the same in every lane), or per thread.
enum class Taint { none = 0, warp = 1, thread = 2 };

Taint most(Taint a, Taint b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

// ---- tokens ----

bool is_ident_start(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return std::isalpha(byte) != 0 || c == '_' || c == '$' || byte >= 0x80;
}

bool is_ident_char(char c) {
  return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

struct Token {
  std::size_t at = 0;  ///< Where it starts in the code.
  std::string_view text;
};

// Longest first, so that "<<=" is not read as "<<" then "=".
const char* const kPunctuators[] = {"<<=", ">>=", "->*", "...", "::", "->", "++", "--", "<<",
                                    ">>",  "<=",  ">=",  "==",  "!=", "&&", "||", "+=", "-=",
                                    "*=",  "/=",  "%=",  "&=",  "|=", "^=", ".*"};

/// One #if group: whether its lines are skipped now, and whether a branch
/// of it has been kept.
struct Conditional {
  bool skipping = false;
  bool kept = false;
};

/// Follows the directive @p line (from its '#' or "%:" to its end):
/// the first branch of each #if group is kept and the others skipped, so that
/// braces opened in both branches are counted once; #if 0 keeps its #else.
void follow_directive(std::string_view line, std::vector<Conditional>& groups) {
  std::size_t at = line.find_first_not_of("#%: \t");
  const std::size_t end = at == std::string_view::npos ? line.size() : line.find_first_of(" \t(!", at);
  const std::string_view name = at == std::string_view::npos ? "" : line.substr(at, end - at);
  if (name == "if" || name == "ifdef" || name == "ifndef") {
    const bool parent = !groups.empty() && groups.back().skipping;
    std::string_view rest = end == std::string_view::npos ? "" : line.substr(end);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    const bool never =
        name == "if" && rest.substr(0, 1) == "0" && (rest.size() == 1 || !is_ident_char(rest[1]));
    groups.push_back({parent || never, !never});
  } else if ((name == "elif" || name == "else") && !groups.empty()) {
    const bool outer = groups.size() > 1 && groups[groups.size() - 2].skipping;
    groups.back().skipping = outer || groups.back().kept;
    groups.back().kept = true;
  } else if (name == "endif" && !groups.empty()) {
    groups.pop_back();
  }
}

/// The code without its preprocessor lines (#pragma unroll, #define: a
/// macro's braces are not the function's) and without the branches after the
/// first of each #if group, cut into tokens.
std::vector<Token> tokenize(const std::string& code) {
  std::vector<Token> tokens;
  const std::string_view view(code);
  std::vector<Conditional> groups;
  bool line_start = true;
  for (std::size_t at = 0; at < code.size();) {
    const char c = code[at];
    if (c == '\n') {
      line_start = true;
      ++at;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++at;
      continue;
    }
    const std::size_t line_end = std::min(code.find('\n', at), code.size());
    if (line_start && (c == '#' || view.substr(at, 2) == "%:")) {
      follow_directive(view.substr(at, line_end - at), groups);
      at = line_end;
      continue;
    }
    if (!groups.empty() && groups.back().skipping) {
      at = line_end;
      continue;
    }
    line_start = false;
    std::size_t end = at + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
        (c == '.' && at + 1 < code.size() && std::isdigit(static_cast<unsigned char>(code[at + 1])) != 0)) {
      while (end < code.size() &&
             (is_ident_char(code[end]) || code[end] == '.' ||
              ((code[end] == '+' || code[end] == '-') && std::strchr("eEpP", code[end - 1]) != nullptr))) {
        ++end;
      }
    } else if (is_ident_start(c)) {
      while (end < code.size() && is_ident_char(code[end])) ++end;
    } else {
      for (const char* punctuator : kPunctuators) {
        if (view.substr(at, std::strlen(punctuator)) == punctuator) {
          end = at + std::strlen(punctuator);
          break;
        }
      }
    }
    tokens.push_back({at, view.substr(at, end - at)});
    at = end;
  }
  return tokens;
}

bool is_identifier(std::string_view text) {
  return !text.empty() && is_ident_start(text[0]);
}

bool is_number(std::string_view text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) != 0 || text[0] == '.');
}

std::string lower(std::string_view text) {
  std::string out;
  for (const char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The value of an integer literal (decimal or hex, suffixes ignored), or -1.
long long integer_value(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])) == 0) return -1;
  std::string digits = lower(text);
  while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'l')) digits.pop_back();
  if (digits.empty() || digits.find_first_of(".'") != std::string::npos) return -1;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(digits, &used, 0);
    return used == digits.size() ? value : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// ---- the scan: tokens, matched brackets, functions ----

/// One construct whose condition decides whether a statement runs.
struct Control {
  std::size_t keyword = kNone;  ///< The if/while/for/switch/else/do token, or a ?:'s first token.
  std::string kind;             ///< "if", "else", "while", "for", "switch", "do", "?:".
  std::size_t begin = kNone;    ///< The condition's tokens: [begin, end).
  std::size_t end = kNone;
  /// A for header's loop variable and where its first value is: the loop's
  /// condition reads the variable as it starts, whatever else the function
  /// assigns to a variable of that name.
  std::string loop_variable;
  std::size_t init_begin = kNone;
  std::size_t init_end = kNone;
  std::string shown;     ///< The construct, for messages: "if (t < s)".
  std::size_t line = 0;  ///< Its line.
};

bool is_loop(const Control& control) {
  return control.kind == "for" || control.kind == "while" || control.kind == "do";
}

/// What owns a statement, from the inside out, up to its function's (or
/// lambda's) body.
struct Walk {
  std::vector<Control> controls;
  std::size_t body = kNone;  ///< The '{' of the function or lambda body the statement is in.
};

/// Taints of one function's variables and of the file's index helpers.
using TaintMap = std::map<std::string, Taint, std::less<>>;

class Scan {
 public:
  explicit Scan(const StrippedSource& source) : source_(source), tokens_(tokenize(source.code)) {
    match_brackets();
    for (std::size_t f = 0; f < tokens_.size(); ++f) {
      if (function_brace_[f]) functions_.push_back(f);
    }
    find_helpers();
  }

  std::vector<BarrierFinding> findings() {
    std::vector<BarrierFinding> out;
    for (std::size_t i = 0; i + 1 < tokens_.size(); ++i) {
      const std::string_view name = text(i);
      const bool warp = name == "__syncwarp";
      if (!(warp || name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
            name == "__syncthreads_or") ||
          text(i + 1) != "(" || match_[i + 1] == kNone || is_member(i) || function_[i] == kNone)
        continue;
      if (warp && !is_full_mask(i + 2, match_[i + 1])) continue;
      BarrierFinding finding;
      if (divergent(i, warp, finding)) out.push_back(std::move(finding));
    }
    return out;
  }

 private:
  std::string_view text(std::size_t i) const { return i < tokens_.size() ? tokens_[i].text : ""; }

  std::size_t line(std::size_t i) const { return source_.lines[tokens_[i].at]; }

  /// The code from token @p first to token @p last, blanks squeezed, shortened.
  std::string shown(std::size_t first, std::size_t last) const {
    const std::size_t from = tokens_[first].at;
    const std::size_t to = tokens_[last].at + tokens_[last].text.size();
    std::string out;
    for (std::size_t at = from; at < to; ++at) {
      const char c = source_.code[at];
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    return out.size() <= kMaxShown ? out : out.substr(0, kMaxShown - 3) + "...";
  }

  bool is_member(std::size_t i) const { return i > 0 && (text(i - 1) == "." || text(i - 1) == "->"); }

  // ---- brackets and functions ----

  void match_brackets() {
    const std::size_t n = tokens_.size();
    match_.assign(n, kNone);
    brace_.assign(n, kNone);
    function_.assign(n, kNone);
    function_brace_.assign(n, false);
    std::vector<std::size_t> open;    // ( [ {
    std::vector<std::size_t> braces;  // { only
    std::size_t function = kNone;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view t = text(i);
      brace_[i] = braces.empty() ? kNone : braces.back();
      function_[i] = function;
      if (t == "(" || t == "[" || t == "{") {
        if (t == "{") {
          if (function == kNone && opens_function(i)) {
            function_brace_[i] = true;
            function = i;
            function_[i] = i;
          }
          braces.push_back(i);
        }
        open.push_back(i);
        continue;
      }
      if (t != ")" && t != "]" && t != "}") continue;
      const std::string_view opener = t == ")" ? "(" : t == "]" ? "[" : "{";
      const auto found =
          std::find_if(open.rbegin(), open.rend(), [&](std::size_t at) { return text(at) == opener; });
      if (found == open.rend()) continue;  // An unbalanced closer (#if branches): ignored.
      const std::size_t o = *found;
      while (open.back() != o) {  // Openers left unclosed inside it are dropped.
        if (text(open.back()) == "{") braces.pop_back();
        open.pop_back();
      }
      open.pop_back();
      if (t == "}") braces.pop_back();
      match_[o] = i;
      match_[i] = o;
      if (o == function) function = kNone;
    }
  }

  /// Whether the '{' at @p b, outside any function, opens a function's body:
  /// not a namespace, class, struct, union, enum or extern "C" block, nor an
  /// initializer (= {...}).
  bool opens_function(std::size_t b) const {
    if (b == 0) return false;
    const std::string_view before = text(b - 1);
    if (before == "=" || before == "," || before == "(" || before == "[" || before == "{" ||
        before == "return" || before == "extern")
      return false;
    std::size_t start = b;
    while (start > 0) {
      const std::string_view t = text(start - 1);
      if (t == ";" || t == "{" || t == "}") break;
      if ((t == ")" || t == "]") && match_[start - 1] != kNone) {
        start = match_[start - 1];
        continue;
      }
      --start;
    }
    // template <...> first: a "class" between its brackets is a parameter.
    if (text(start) == "template" && text(start + 1) == "<") {
      int depth = 0;
      for (std::size_t i = start + 1; i < b; ++i) {
        depth += text(i) == "<" ? 1 : text(i) == ">" ? -1 : text(i) == ">>" ? -2 : 0;
        if (depth <= 0) {
          start = i + 1;
          break;
        }
      }
    }
    if (text(start) == "namespace" || (text(start) == "inline" && text(start + 1) == "namespace"))
      return false;
    if (before == ")") return true;  // A class head never ends in ')'.
    for (std::size_t i = start; i < b; ++i) {
      const std::string_view t = text(i);
      if (t == "class" || t == "struct" || t == "union" || t == "enum") return false;
    }
    return true;
  }

  /// Whether the '{' at @p b (inside a function) opens a statement block
  /// (of a control, an else, a do, a label, or a plain block) rather than a
  /// lambda's body or a brace initializer, which belong to an expression.
  bool is_statement_brace(std::size_t b) const {
    if (function_brace_[b] || b == 0) return true;
    const std::string_view before = text(b - 1);
    if (before == ";" || before == "{" || before == "}" || before == "else" || before == "do" ||
        before == ":")
      return true;
    if (before != ")") return false;
    const std::size_t o = match_[b - 1];
    return o == kNone || o == 0 || text(o - 1) != "]";  // [&](int k) { is a lambda.
  }

  bool is_lambda_brace(std::size_t b) const {
    if (b == 0 || is_statement_brace(b)) return false;
    const std::string_view before = text(b - 1);
    if (before == "]" || before == "mutable" || before == "noexcept") return true;
    return before == ")" && match_[b - 1] != kNone && match_[b - 1] > 0 && text(match_[b - 1] - 1) == "]";
  }

  /// The if/while/for/switch keyword whose head starts with the '(' at @p o.
  std::size_t control_before(std::size_t o) const {
    if (o == 0 || o == kNone) return kNone;
    std::size_t k = o - 1;
    if (text(k) == "constexpr" && k > 0 && text(k - 1) == "if") --k;
    const std::string_view t = text(k);
    return t == "if" || t == "while" || t == "for" || t == "switch" ? k : kNone;
  }

  // ---- the constructs around a statement ----

  Control paren_control(std::size_t keyword, std::size_t open, std::size_t close) const {
    Control control;
    control.keyword = keyword;
    control.kind = std::string(text(keyword));
    control.begin = open + 1;
    control.end = close;
    control.shown = shown(keyword, close);
    control.line = line(keyword);
    if (control.kind != "for") return control;
    // for (init; condition; step): the condition alone decides the trip count,
    // with the loop variable as init sets it.
    std::vector<std::size_t> semicolons;
    for (std::size_t i = open + 1; i < close; ++i) {
      if (text(i) == ";") semicolons.push_back(i);
      if ((text(i) == "(" || text(i) == "[" || text(i) == "{") && match_[i] != kNone) i = match_[i];
    }
    if (semicolons.size() != 2) return control;  // A range-for: its whole head.
    control.begin = semicolons[0] + 1;
    control.end = semicolons[1];
    for (std::size_t i = open + 1; i + 1 < semicolons[0]; ++i) {
      if (is_identifier(text(i)) && text(i + 1) == "=") {
        control.loop_variable = std::string(text(i));
        control.init_begin = i + 2;
        control.init_end = expression_end(i + 2);
        break;
      }
    }
    return control;
  }

  /// The if whose else is at @p e: the nearest if before it at the same depth
  /// (blocks and parentheses skipped), as C++ pairs a dangling else.
  std::size_t owning_if(std::size_t e) const {
    for (std::size_t j = e; j > 0;) {
      const std::size_t p = j - 1;
      const std::string_view t = text(p);
      if ((t == ")" || t == "]" || t == "}") && match_[p] != kNone) {
        const std::size_t keyword = t == ")" ? control_before(match_[p]) : kNone;
        if (keyword != kNone && text(keyword) == "if") return keyword;
        j = match_[p];
        continue;
      }
      if (t == "(" || t == "[" || t == "{") return kNone;
      j = p;
    }
    return kNone;
  }

  /// The if's head that starts at keyword @p k: its '(' and ')'.
  std::pair<std::size_t, std::size_t> head(std::size_t k) const {
    const std::size_t open = text(k + 1) == "constexpr" ? k + 2 : k + 1;
    return {open, match_[open]};
  }

  Control do_control(std::size_t d) const {
    Control control;
    control.keyword = d;
    control.kind = "do";
    control.shown = "do ... while";
    control.line = line(d);
    std::size_t after = kNone;
    if (text(d + 1) == "{" && match_[d + 1] != kNone) {
      after = match_[d + 1] + 1;
    } else {
      const std::size_t end = expression_end(d + 1);
      if (text(end) == ";") after = end + 1;
    }
    if (after != kNone && text(after) == "while" && text(after + 1) == "(" && match_[after + 1] != kNone) {
      control.begin = after + 2;
      control.end = match_[after + 1];
      control.shown = "do ... " + shown(after, control.end);
      control.line = line(after);
    }
    return control;
  }

  /// Where the expression that starts at @p from ends: the ';' or ',' after
  /// it, or the bracket that closes around it.
  std::size_t expression_end(std::size_t from) const {
    std::size_t i = from;
    while (i < tokens_.size()) {
      const std::string_view t = text(i);
      if (t == ";" || t == "," || t == ")" || t == "]" || t == "}") return i;
      if ((t == "(" || t == "[" || t == "{") && match_[i] != kNone) {
        i = match_[i] + 1;
        continue;
      }
      ++i;
    }
    return i;
  }

  bool ends_expression_backward(std::string_view t) const {
    return t == ";" || t == "{" || t == "}" || t == "(" || t == "[" || t == "," || t == "?" || t == ":" ||
           t == "return" || t == "else" || t == "do" || t == "=" || t == "+=" || t == "-=" || t == "*=" ||
           t == "/=" || t == "%=" || t == "&=" || t == "|=" || t == "^=" || t == "<<=" || t == ">>=";
  }

  /// The first token of the condition of the ?: whose '?' is at @p q.
  std::size_t condition_start(std::size_t q) const {
    std::size_t j = q;
    while (j > 0) {
      const std::size_t p = j - 1;
      const std::string_view t = text(p);
      if (t == ")" && match_[p] != kNone) {
        if (control_before(match_[p]) != kNone) return j;
        j = match_[p];
        continue;
      }
      if ((t == "]" && match_[p] != kNone) ||
          (t == "}" && match_[p] != kNone && !is_statement_brace(match_[p]))) {
        j = match_[p];
        continue;
      }
      if (ends_expression_backward(t)) return j;
      j = p;
    }
    return 0;
  }

  /// The '?' of the ?: whose ':' is at @p c, or kNone when the ':' ends a
  /// label (case 1:, default:).
  std::size_t question_of(std::size_t c) const {
    int depth = 1;
    for (std::size_t j = c; j > 0;) {
      const std::size_t p = j - 1;
      const std::string_view t = text(p);
      if ((t == ")" || t == "]") && match_[p] != kNone) {
        j = match_[p];
        continue;
      }
      if (t == "}" && match_[p] != kNone && !is_statement_brace(match_[p])) {
        j = match_[p];
        continue;
      }
      if (t == ";" || t == "{" || t == "}" || t == "(" || t == "[") return kNone;
      if (t == ":") ++depth;
      if (t == "?" && --depth == 0) return p;
      j = p;
    }
    return kNone;
  }

  Control ternary_control(std::size_t q) const {
    Control control;
    const std::size_t start = condition_start(q);
    control.keyword = start;
    control.kind = "?:";
    control.begin = start;
    control.end = q;
    control.shown = (start < q ? shown(start, q - 1) : std::string()) + " ? ... : ...";
    control.line = line(start < q ? start : q);
    return control;
  }

  /// Walks out from token @p k: every construct that decides whether the
  /// statement (or expression) at @p k runs, innermost first, up to the body
  /// of its function or lambda.
  Walk walk_out(std::size_t k) const {
    Walk walk;
    std::size_t cur = k;
    // The statement at cur is directly in the block that @p b opens: what owns the block?
    const auto up_to_block = [&](std::size_t b) {
      if (b == kNone) return false;
      if (function_brace_[b] || is_lambda_brace(b)) {
        walk.body = b;
        return false;
      }
      if (is_statement_brace(b) && b > 0) {
        const std::string_view before = text(b - 1);
        if (before == ")") {
          const std::size_t keyword = control_before(match_[b - 1]);
          if (keyword != kNone) {
            walk.controls.push_back(paren_control(keyword, match_[b - 1], b - 1));
            cur = keyword;
            return true;
          }
        } else if (before == "else") {
          return enter_else(b - 1, walk, cur);
        } else if (before == "do") {
          walk.controls.push_back(do_control(b - 1));
          cur = b - 1;
          return true;
        }
      }
      cur = b;  // A plain block, a labelled one, or a brace initializer: go on outward from it.
      return true;
    };
    for (std::size_t steps = 0; steps <= tokens_.size(); ++steps) {
      bool moved = false;
      for (std::size_t j = cur; j > 0 && !moved;) {
        const std::size_t p = j - 1;
        const std::string_view t = text(p);
        if (t == ")" && match_[p] != kNone) {
          const std::size_t keyword = control_before(match_[p]);
          if (keyword != kNone) {  // A braceless body: if (t < s) __syncthreads();
            walk.controls.push_back(paren_control(keyword, match_[p], p));
            cur = keyword;
            moved = true;
          } else {
            j = match_[p];
          }
        } else if ((t == "]" && match_[p] != kNone) ||
                   (t == "}" && match_[p] != kNone && !is_statement_brace(match_[p]))) {
          j = match_[p];
        } else if (t == "}" || t == ";") {
          // The statement before ours ends here: ours is in the same block.
          if (!up_to_block(t == "}" && match_[p] != kNone ? brace_[match_[p]] : brace_[p])) return walk;
          moved = true;
        } else if (t == "{") {
          if (!up_to_block(p)) return walk;
          moved = true;
        } else if (t == "?") {
          walk.controls.push_back(ternary_control(p));
          cur = walk.controls.back().keyword;
          moved = true;
        } else if (t == ":") {
          const std::size_t q = question_of(p);
          if (q != kNone) {
            walk.controls.push_back(ternary_control(q));
            cur = walk.controls.back().keyword;
          } else if (!up_to_block(brace_[p])) {  // A label: case 1:
            return walk;
          }
          moved = true;
        } else if (t == "else") {
          if (!enter_else(p, walk, cur)) return walk;
          moved = true;
        } else if (t == "do") {
          walk.controls.push_back(do_control(p));
          cur = p;
          moved = true;
        } else {
          j = p;  // Part of the same expression, or an unclosed '(' around it.
        }
      }
      if (!moved) return walk;
    }
    return walk;
  }

  /// Records the else at @p e (the condition of its if) and moves @p cur to that if.
  bool enter_else(std::size_t e, Walk& walk, std::size_t& cur) const {
    const std::size_t keyword = owning_if(e);
    if (keyword == kNone) return false;
    const auto [open, close] = head(keyword);
    if (close == kNone) return false;
    Control control = paren_control(keyword, open, close);
    control.kind = "else";
    control.shown += " ... else";
    walk.controls.push_back(std::move(control));
    cur = keyword;
    return true;
  }

  // ---- what depends on the thread ----

  /// Whether the value at token @p i, read as "x / 32" or "x >> 5", is the
  /// same in a whole warp: what comes after it is a division by a multiple of
  /// 32 (or by a constant named for the warp size) or a shift by 5 or more.
  bool divided_by_warp(std::size_t i) const {
    while (text(i) == ")") ++i;
    const std::string_view by = text(i + 1);
    if (text(i) == "/") {
      const long long value = integer_value(by);
      return (value >= 32 && value % 32 == 0) || lower(by).find("warp") != std::string::npos;
    }
    return text(i) == ">>" && integer_value(by) >= 5;
  }

  /// How the token at @p i depends on the thread, with @p vars the taints of
  /// the function's variables.
  Taint token_taint(std::size_t i, const TaintMap& vars) const {
    const std::string_view t = text(i);
    if (!is_identifier(t) || is_member(i)) return Taint::none;
    if (t == "threadIdx") {
      if (text(i + 1) == "." && text(i + 2) == "x")
        return divided_by_warp(i + 3) ? Taint::warp : Taint::thread;
      return Taint::thread;
    }
    if (t == "laneid") return Taint::thread;
    if (text(i + 1) == "(") {
      if (t == "thread_rank") return Taint::thread;
      const auto helper = helpers_.find(t);
      if (helper != helpers_.end()) return helper->second;
    }
    // A qualified name (Traits::value, ns::x) is not a local variable.
    if ((i > 0 && text(i - 1) == "::") || text(i + 1) == "::") return Taint::none;
    const auto var = vars.find(t);
    if (var == vars.end()) return Taint::none;
    return var->second == Taint::thread && divided_by_warp(i + 1) ? Taint::warp : var->second;
  }

  Taint range_taint(std::size_t begin, std::size_t end, const TaintMap& vars) const {
    Taint taint = Taint::none;
    for (std::size_t i = begin; i < end && i < tokens_.size(); ++i) taint = most(taint, token_taint(i, vars));
    return taint;
  }

  /// Every assignment in the function whose body opens at @p f: the variable
  /// and where its new value is. A declaration with a brace or parenthesis
  /// initializer (int t{threadIdx.x}) counts too.
  struct Assignment {
    std::string name;
    std::size_t begin;
    std::size_t end;
  };

  std::vector<Assignment> assignments(std::size_t f) const {
    std::vector<Assignment> out;
    const std::size_t end = match_[f] == kNone ? tokens_.size() : match_[f];
    for (std::size_t i = f + 1; i + 1 < end; ++i) {
      const std::string_view t = text(i);
      if (!is_identifier(t) || is_member(i) || (i > 0 && text(i - 1) == "::")) continue;
      const std::string_view next = text(i + 1);
      if (next == "=" || next == "+=" || next == "-=" || next == "*=" || next == "/=" || next == "%=" ||
          next == "&=" || next == "|=" || next == "^=" || next == "<<=" || next == ">>=") {
        out.push_back({std::string(t), i + 2, expression_end(i + 2)});
      } else if ((next == "{" || next == "(") && match_[i + 1] != kNone &&
                 (text(i - 1) == ">" || (is_identifier(text(i - 1)) && !is_keyword(text(i - 1))))) {
        out.push_back({std::string(t), i + 2, match_[i + 1]});
      }
    }
    asm_outputs(f, end, out);
    return out;
  }

  static bool is_keyword(std::string_view t) {
    for (const char* keyword : {"return", "else", "do", "case", "new", "delete", "throw", "sizeof", "typedef",
                                "using", "goto", "co_return", "co_yield", "if", "while", "for", "switch"}) {
      if (t == keyword) return true;
    }
    return false;
  }

  /// asm("mov.u32 %0, %%laneid;" : "=r"(lane)): the outputs of an inline asm
  /// that reads %laneid, %tid or %warpid are per thread (the whole asm
  /// statement counts as one assignment of threadIdx to each of them).
  void asm_outputs(std::size_t f, std::size_t end, std::vector<Assignment>& out) const {
    for (std::size_t i = f + 1; i < end; ++i) {
      std::string_view t = text(i);
      while (!t.empty() && t.front() == '_') t.remove_prefix(1);
      while (!t.empty() && t.back() == '_') t.remove_suffix(1);
      if (t != "asm") continue;
      std::size_t open = i + 1;
      while (text(open) == "volatile" || text(open) == "__volatile__" || text(open) == "goto") ++open;
      if (text(open) != "(" || match_[open] == kNone) continue;
      const std::size_t close = match_[open];
      bool reads_thread = false;
      for (const StringLiteral& literal : source_.literals) {
        if (literal.at > tokens_[open].at && literal.at < tokens_[close].at &&
            (literal.body.find("laneid") != std::string::npos ||
             literal.body.find("%tid") != std::string::npos ||
             literal.body.find("warpid") != std::string::npos))
          reads_thread = true;
      }
      if (!reads_thread) continue;
      int colons = 0;
      for (std::size_t j = open + 1; j < close; ++j) {
        if (text(j) == ":") ++colons;
        if (colons == 1 && text(j) == "(" && match_[j] != kNone) {
          for (std::size_t k = j + 1; k < match_[j]; ++k) {
            if (is_identifier(text(k))) out.push_back({std::string(text(k)), kNone, kNone});
          }
          j = match_[j];
        }
      }
    }
  }

  /// The taints of the function's variables: assigned from threadIdx (or
  /// laneid, an index helper, a %laneid asm) directly, or from such a variable.
  TaintMap variables(std::size_t f) const {
    const std::vector<Assignment> all = assignments(f);
    TaintMap direct;
    for (const Assignment& a : all) {
      const Taint taint = a.begin == kNone ? Taint::thread : range_taint(a.begin, a.end, {});
      if (taint != Taint::none) direct[a.name] = most(direct[a.name], taint);
    }
    TaintMap through = direct;  // One level of assignment more: u = t * 2.
    for (const Assignment& a : all) {
      if (a.begin == kNone) continue;
      const Taint taint = range_taint(a.begin, a.end, direct);
      if (taint != Taint::none) through[a.name] = most(through[a.name], taint);
    }
    return through;
  }

  const TaintMap& variables_of(std::size_t f) {
    auto found = variables_.find(f);
    if (found == variables_.end()) found = variables_.emplace(f, variables(f)).first;
    return found->second;
  }

  /// Index helpers: the functions of the file without parameters that return
  /// a value that depends on the thread (lane_index(), warp_index()). Twice,
  /// for a helper built on another.
  void find_helpers() {
    for (int round = 0; round < 2; ++round) {
      for (const std::size_t f : functions_) {
        std::size_t close = f - 1;
        while (close > 0 && text(close) != ")" && is_identifier(text(close))) --close;  // const, noexcept
        if (text(close) != ")" || match_[close] == kNone) continue;
        const std::size_t open = match_[close];
        const bool no_parameters = open + 1 == close || (text(open + 1) == "void" && open + 2 == close);
        if (!no_parameters || open == 0 || !is_identifier(text(open - 1))) continue;
        const TaintMap vars = variables(f);
        Taint taint = Taint::none;
        for (std::size_t i = f + 1; i < match_[f] && match_[f] != kNone; ++i) {
          if (text(i) == "return") taint = most(taint, range_taint(i + 1, expression_end(i + 1), vars));
        }
        if (taint != Taint::none) helpers_[std::string(text(open - 1))] = taint;
      }
    }
  }

  Taint condition_taint(const Control& control, const TaintMap& vars) const {
    if (control.begin == kNone) return Taint::none;
    if (control.loop_variable.empty()) return range_taint(control.begin, control.end, vars);
    TaintMap loop = vars;
    loop[control.loop_variable] = range_taint(control.init_begin, control.init_end, vars);
    return range_taint(control.begin, control.end, loop);
  }

  // ---- barriers ----

  /// No argument, 0xffffffff (any case and suffix), ~0u, or a constant whose
  /// name says full mask (kFullMask, kFullWarpMask, FULL_MASK).
  bool is_full_mask(std::size_t begin, std::size_t end) const {
    if (begin == end) return true;
    if (end - begin == 2 && text(begin) == "~") return integer_value(text(begin + 1)) == 0;
    if (end - begin != 1) return false;
    const std::string_view t = text(begin);
    if (is_number(t)) return integer_value(t) == 0xffffffffLL;
    const std::string name = lower(t);
    return name.find("full") != std::string::npos && name.find("mask") != std::string::npos;
  }

  /// The returns, breaks and continues of the function whose body opens at @p f.
  const std::vector<std::size_t>& exits_of(std::size_t f) {
    auto found = exits_.find(f);
    if (found != exits_.end()) return found->second;
    std::vector<std::size_t> exits;
    const std::size_t end = match_[f] == kNone ? tokens_.size() : match_[f];
    for (std::size_t j = f + 1; j < end; ++j) {
      if (text(j) == "return" || text(j) == "break" || text(j) == "continue") exits.push_back(j);
    }
    return exits_.emplace(f, std::move(exits)).first->second;
  }

  /// walk_out(@p j), walked once (a file may have many barriers and exits).
  const Walk& walk_of(std::size_t j) {
    auto found = walks_.find(j);
    if (found == walks_.end()) found = walks_.emplace(j, walk_out(j)).first;
    return found->second;
  }

  bool divergent(std::size_t b, bool warp, BarrierFinding& finding) {
    const Taint needed = warp ? Taint::thread : Taint::warp;
    const TaintMap& vars = variables_of(function_[b]);
    const auto taken = [&](const Control& control) {
      return static_cast<int>(condition_taint(control, vars)) >= static_cast<int>(needed);
    };
    finding.line = line(b);
    finding.barrier = shown(b, match_[b + 1]);
    finding.warp = warp;
    const Walk walk = walk_out(b);
    for (const Control& control : walk.controls) {
      if (taken(control)) {
        finding.condition = control.shown;
        finding.condition_line = control.line;
        return true;
      }
    }
    const auto encloses_barrier = [&](const Control& construct) {
      return std::any_of(walk.controls.begin(), walk.controls.end(), [&](const Control& c) {
        return c.kind == construct.kind && c.keyword == construct.keyword;
      });
    };
    for (const std::size_t j : exits_of(function_[b])) {
      const std::string_view t = text(j);
      const Walk& exit = walk_of(j);
      if (exit.body != walk.body) continue;  // In a lambda, or the barrier is.
      // The guards: what decides whether this exit is taken, inside what it leaves.
      std::size_t guards = exit.controls.size();
      bool applies = false;
      if (t == "return") {
        applies = j < b || std::any_of(exit.controls.begin(), exit.controls.end(),
                                       [&](const Control& c) { return is_loop(c) && encloses_barrier(c); });
        // (A return in a loop around the barrier skips its next passes.)
      } else {
        const auto left = std::find_if(exit.controls.begin(), exit.controls.end(), [&](const Control& c) {
          return is_loop(c) || (t == "break" && c.kind == "switch");
        });
        if (left == exit.controls.end()) continue;
        guards = static_cast<std::size_t>(left - exit.controls.begin());
        // A break out of a loop skips every barrier of the passes it leaves
        // out; a continue, or a break out of a switch, the barriers after it.
        applies = encloses_barrier(*left) && ((t == "break" && is_loop(*left)) || j < b);
      }
      if (!applies) continue;
      for (std::size_t g = 0; g < guards; ++g) {
        if (taken(exit.controls[g])) {
          finding.condition = exit.controls[g].shown;
          finding.condition_line = exit.controls[g].line;
          finding.exit = std::string(t);
          return true;
        }
      }
    }
    return false;
  }

  const StrippedSource& source_;
  std::vector<Token> tokens_;
  std::vector<std::size_t> match_;     ///< The other bracket of each ( ) [ ] { }; kNone otherwise.
  std::vector<std::size_t> brace_;     ///< The innermost '{' around each token.
  std::vector<std::size_t> function_;  ///< The function body '{' each token is in; kNone outside.
  std::vector<bool> function_brace_;   ///< Whether a '{' opens a function's body.
  std::vector<std::size_t> functions_;
  TaintMap helpers_;
  std::map<std::size_t, TaintMap> variables_;
  std::map<std::size_t, std::vector<std::size_t>> exits_;
  std::map<std::size_t, Walk> walks_;
};

std::string read_whole_file(const fs::path& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream text;
  if (ok) text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<BarrierFinding> find_divergent_barriers(const StrippedSource& source) {
  return Scan(source).findings();
}

std::vector<BarrierFinding> find_divergent_barriers(std::string_view text) {
  return find_divergent_barriers(strip_source(text));
}

std::string describe_barrier_finding(const BarrierFinding& finding) {
  std::string text = (finding.file.empty() ? std::string() : finding.file + ":") +
                     std::to_string(finding.line) + ": " + finding.barrier;
  const std::string where = " (line " + std::to_string(finding.condition_line) + ")";
  if (finding.exit.empty()) {
    text += " inside '" + finding.condition + "'" + where + ", whose condition depends on the thread index";
  } else if (finding.exit == "break") {
    text += " that '" + finding.condition + " break'" + where + " skips for only some threads";
  } else {
    text +=
        " after '" + finding.condition + " " + finding.exit + "'" + where + ", which only some threads take";
  }
  return text + ": " + (finding.warp ? kWarpWhy : kBlockWhy);
}

std::vector<BarrierFinding> check_lab_barriers(const std::string& source_dir, const LabEntry& lab,
                                               bool solutions) {
  std::vector<BarrierFinding> findings;
  if (source_dir.empty() || lab.base.empty()) return findings;
  for (const std::string& file : lab_source_files(source_dir, lab, solutions)) {
    bool ok = false;
    const std::string text = read_whole_file(fs::path(source_dir) / file, ok);
    if (!ok) continue;
    for (BarrierFinding& finding : find_divergent_barriers(text)) {
      finding.file = file;
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

std::string barrier_refusal(const LabEntry& lab, bool solutions,
                            const std::vector<BarrierFinding>& findings) {
  const std::string file = lab_source_file(lab, solutions);
  const std::string rule =
      "which this lab's rubric does not accept (\"barrier_in_divergent_code\": \"fail\")";
  std::string text = solutions
                         ? "the reference solution " + file +
                               " has a barrier that not every thread reaches (a bug in the solution), " +
                               rule + ", so the lab scores 0 and its tests were not run:"
                         : file + " has a barrier that not every thread reaches, " + rule +
                               ", so the lab scores 0 and its tests were not run. Move each barrier to "
                               "where every thread reaches it and grade again:";
  for (const BarrierFinding& finding : findings) text += "\n- " + describe_barrier_finding(finding);
  return text;
}

}  // namespace workbook::grader
