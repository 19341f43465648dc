#include "source_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kNpos = std::string::npos;
// The standard's limit on the delimiter of a raw string literal.
constexpr std::size_t kMaxRawDelimiter = 16;

const char* const kPasteWhy =
    "A pasted token can build a forbidden name that the grader cannot see: write the names out";
const char* const kComputedIncludeWhy =
    "Write the header's path itself (#include <path> or #include \"path\"), so that the grader can check it";
const char* const kMangledWhy =
    "A mangled C++ symbol name reaches a library function under a name the grader cannot read. Remove it: "
    "your file only computes on the GPU; the tests do the I/O";
// What every reason of forbidden_everywhere() ends with.
const char* const kFix = " Remove it: your file only computes on the GPU; the tests do the I/O";

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// '$' and non-ASCII bytes are identifier characters for GCC and nvcc.
bool is_ident_start(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return std::isalpha(byte) != 0 || c == '_' || c == '$' || byte >= 0x80;
}

bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool is_space(char c) {
  return is_blank(c) || c == '\n';
}

char at_or_nul(std::string_view text, std::size_t at) {
  return at < text.size() ? text[at] : '\0';
}

std::size_t identifier_end(std::string_view code, std::size_t at) {
  while (at < code.size() && is_ident_char(code[at])) ++at;
  return at;
}

void blank(std::string& code, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to && i < code.size(); ++i) {
    if (code[i] != '\n') code[i] = ' ';
  }
}

// ---- translation phase 2 ----

/// Where a line splice (a backslash, optional blanks as GCC allows, a
/// newline) starting at @p at ends, or kNpos when there is none.
std::size_t splice_end(std::string_view text, std::size_t at) {
  if (text[at] != '\\') return kNpos;
  std::size_t i = at + 1;
  while (i < text.size() && is_blank(text[i])) ++i;
  return i < text.size() && text[i] == '\n' ? i + 1 : kNpos;
}

StrippedSource splice_lines(std::string_view text) {
  StrippedSource out;
  out.code.reserve(text.size());
  out.lines.reserve(text.size());
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = splice_end(text, i);
    if (end != kNpos) {
      ++line;
      i = end;
      continue;
    }
    out.code += text[i];
    out.lines.push_back(line);
    if (text[i] == '\n') ++line;
    ++i;
  }
  return out;
}

// ---- tokens that hide text: comments, literals, numbers ----

/// End of the "..." or '...' literal whose quote is at @p at (at the end of
/// the line when it is not closed).
std::size_t quoted_end(std::string_view code, std::size_t at) {
  const char quote = code[at];
  std::size_t i = at + 1;
  while (i < code.size() && code[i] != quote && code[i] != '\n') i += code[i] == '\\' ? 2 : 1;
  if (i >= code.size()) return code.size();
  return code[i] == quote ? i + 1 : i;
}

/// End of the raw string R"delim(...)delim" whose quote is at @p at, or
/// kNpos when no well-formed delimiter follows the quote.
std::size_t raw_string_end(std::string_view code, std::size_t at) {
  const std::size_t open = code.find('(', at + 1);
  if (open == kNpos || open - at - 1 > kMaxRawDelimiter) return kNpos;
  const std::string_view delimiter = code.substr(at + 1, open - at - 1);
  if (delimiter.find_first_of(" ()\\\t\n\r\f\v\"") != kNpos) return kNpos;
  const std::string close = ")" + std::string(delimiter) + "\"";
  const std::size_t end = code.find(close, open + 1);
  return end == kNpos ? code.size() : end + close.size();
}

/// End of the pp-number at @p at: digits, letters, '_', '.', exponent signs
/// (1e+5, 0x1p-3) and digit separators (1'000'000, which are not literals).
std::size_t number_end(std::string_view code, std::size_t at) {
  std::size_t i = at + 1;
  while (i < code.size()) {
    const char c = code[i];
    if ((c == '+' || c == '-') && std::strchr("eEpP", code[i - 1]) != nullptr) {
      ++i;
    } else if (c == '\'' && is_ident_char(at_or_nul(code, i + 1))) {
      i += 2;
    } else if (is_ident_char(c) || c == '.') {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

bool starts_number(std::string_view code, std::size_t at) {
  return is_digit(code[at]) || (code[at] == '.' && is_digit(at_or_nul(code, at + 1)));
}

bool is_raw_prefix(std::string_view prefix) {
  return prefix == "R" || prefix == "LR" || prefix == "uR" || prefix == "UR" || prefix == "u8R";
}

bool is_encoding_prefix(std::string_view prefix) {
  return prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8";
}

/// The body of the string literal whose quote is at @p quote and that ends
/// at @p end: between the quotes, or for a raw string between the parentheses.
std::string literal_body(std::string_view code, std::size_t quote, std::size_t end, bool raw) {
  std::size_t begin = quote + 1;
  std::size_t stop = end;
  if (stop > begin && code[stop - 1] == '"') --stop;  // Not when the literal is cut short.
  if (raw) {
    begin = std::min(code.find('(', begin) + 1, stop);
    const std::size_t close = code.rfind(')', stop);
    if (close != kNpos && close >= begin) stop = close;
  }
  return std::string(code.substr(begin, stop > begin ? stop - begin : 0));
}

/// What strip_source() collects while it lexes.
struct Lexed {
  std::map<std::size_t, std::size_t> strings;  ///< Plain "..." strings: start -> end.
  std::vector<StringLiteral> literals;         ///< Every string literal (line filled in later).
};

/// Lexes the identifier at @p at; when it is the prefix of a literal
/// (R"(...)", u8"...", L'x'), blanks prefix and literal. Returns the end.
std::size_t lex_identifier(std::string& code, std::size_t at, Lexed& lexed) {
  const std::size_t end = identifier_end(code, at);
  const char next = at_or_nul(code, end);
  if (next != '"' && next != '\'') return end;
  const std::string_view prefix(code.data() + at, end - at);
  std::size_t literal_end = kNpos;
  bool raw = false;
  if (next == '"' && is_raw_prefix(prefix)) {
    literal_end = raw_string_end(code, end);
    raw = literal_end != kNpos;
  }
  if (literal_end == kNpos && (is_encoding_prefix(prefix) || is_raw_prefix(prefix)))
    literal_end = quoted_end(code, end);
  if (literal_end == kNpos) return end;
  if (next == '"') lexed.literals.push_back({at, literal_end, 0, literal_body(code, end, literal_end, raw)});
  blank(code, at, literal_end);
  return literal_end;
}

/// Lexes one token (or character) at @p at, blanking it when it is a comment
/// or a literal, and recording string literals in @p lexed.
std::size_t lex_one(std::string& code, std::size_t at, Lexed& lexed) {
  const char c = code[at];
  const char next = at_or_nul(code, at + 1);
  std::size_t end = at + 1;
  if (c == '/' && next == '/') {
    end = std::min(code.find('\n', at), code.size());
  } else if (c == '/' && next == '*') {
    const std::size_t close = code.find("*/", at + 2);
    end = close == kNpos ? code.size() : close + 2;
  } else if (c == '"' || c == '\'') {
    end = quoted_end(code, at);
    if (c == '"') {
      lexed.strings[at] = end;
      lexed.literals.push_back({at, end, 0, literal_body(code, at, end, false)});
    }
  } else if (starts_number(code, at)) {
    return number_end(code, at);
  } else if (is_ident_start(c)) {
    return lex_identifier(code, at, lexed);
  } else {
    return end;
  }
  blank(code, at, end);
  return end;
}

// ---- #include directives ----

std::size_t skip_blanks(std::string_view code, std::size_t at) {
  while (at < code.size() && is_blank(code[at])) ++at;
  return at;
}

/// The directive's name when the line at @p start is a directive ("#" or the
/// digraph "%:", then a name); sets @p after to just past the name.
std::string directive_name(std::string_view code, std::size_t start, std::size_t& after) {
  std::size_t at = skip_blanks(code, start);
  if (code.substr(at, 1) == "#") {
    at += 1;
  } else if (code.substr(at, 2) == "%:") {
    at += 2;
  } else {
    return "";
  }
  at = skip_blanks(code, at);
  after = identifier_end(code, at);
  return std::string(code.substr(at, after - at));
}

/// Reads the operand of the #include whose name ends at @p at, from the code
/// (for <path>) or from the text before strings were blanked (for "path"),
/// and blanks the path so that it is not also matched as tokens.
IncludeDirective read_include(StrippedSource& source, std::string_view spliced,
                              const std::map<std::size_t, std::size_t>& strings, std::size_t at) {
  std::string& code = source.code;
  IncludeDirective include;
  // Blanks, but not the blanked "path" of a quoted include.
  std::size_t begin = at;
  while (begin < code.size() && is_blank(code[begin]) && strings.count(begin) == 0) ++begin;
  const std::size_t line_end = std::min(code.find('\n', begin), code.size());
  include.line = source.lines[std::min(begin, source.lines.size() - 1)];
  const std::size_t close = code.find('>', begin);
  const auto string = strings.find(begin);
  if (at_or_nul(code, begin) == '<' && close < line_end) {
    include.form = IncludeForm::angled;
    include.path = code.substr(begin + 1, close - begin - 1);
    blank(code, begin, close + 1);
  } else if (string != strings.end()) {
    include.form = IncludeForm::quoted;
    include.path = std::string(spliced.substr(begin + 1, string->second - begin - 1));
    if (!include.path.empty() && include.path.back() == '"') include.path.pop_back();
  } else {
    include.form = IncludeForm::computed;
    include.path = code.substr(begin, line_end - begin);
    while (!include.path.empty() && is_space(include.path.back())) include.path.pop_back();
  }
  return include;
}

void find_includes(StrippedSource& source, std::string_view spliced,
                   const std::map<std::size_t, std::size_t>& strings) {
  for (std::size_t start = 0; start < source.code.size();) {
    std::size_t after = start;
    const std::string name = directive_name(source.code, start, after);
    if (name == "include" || name == "include_next" || name == "import") {
      IncludeDirective include = read_include(source, spliced, strings, after);
      include.directive = name;
      if (!include.path.empty()) source.includes.push_back(std::move(include));
    }
    const std::size_t newline = source.code.find('\n', start);
    start = newline == kNpos ? source.code.size() : newline + 1;
  }
}

// ---- names ----

std::size_t skip_space_back(std::string_view code, std::size_t at) {
  while (at > 0 && is_space(code[at - 1])) --at;
  return at;
}

std::size_t skip_space(std::string_view code, std::size_t at) {
  while (at < code.size() && is_space(code[at])) ++at;
  return at;
}

std::size_t identifier_begin(std::string_view code, std::size_t end) {
  std::size_t begin = end;
  while (begin > 0 && is_ident_char(code[begin - 1])) --begin;
  while (begin < end && is_digit(code[begin])) ++begin;
  return begin;
}

/// The qualified name around the identifier [begin, end), for messages:
/// "cub::DeviceScan::ExclusiveSum" for the token "cub".
std::string qualified_name(std::string_view code, std::size_t begin, std::size_t end) {
  std::string text(code.substr(begin, end - begin));
  for (std::size_t at = skip_space_back(code, begin); at >= 2 && code.substr(at - 2, 2) == "::";) {
    // A name before "::" is written next to it: "a::b", but "return ::b".
    const std::size_t name_end = at - 2;
    const std::size_t name_begin = identifier_begin(code, name_end);
    if (name_begin == name_end) {
      text = "::" + text;
      break;
    }
    text = std::string(code.substr(name_begin, name_end - name_begin)) + "::" + text;
    at = skip_space_back(code, name_begin);
  }
  for (std::size_t at = skip_space(code, end); code.substr(at, 2) == "::";) {
    const std::size_t name_begin = skip_space(code, at + 2);
    const std::size_t name_end = identifier_end(code, name_begin);
    if (name_end == name_begin || is_digit(code[name_begin])) break;
    text += "::" + std::string(code.substr(name_begin, name_end - name_begin));
    at = skip_space(code, name_end);
  }
  return text;
}

const ForbiddenName* find_name(const std::vector<ForbiddenName>& forbidden, std::string_view token) {
  for (const ForbiddenName& name : forbidden) {
    if (name.name == token) return &name;
  }
  return nullptr;
}

/// Walks the stripped code's tokens: visit_identifier(at, end) for each
/// identifier; numbers are skipped whole (the x in 0x1f is no identifier); at
/// any other character visit_other(at) returns where to go on.
template <typename VisitIdentifier, typename VisitOther>
void walk_tokens(std::string_view code, VisitIdentifier visit_identifier, VisitOther visit_other) {
  for (std::size_t at = 0; at < code.size();) {
    if (starts_number(code, at)) {
      at = number_end(code, at);
    } else if (is_ident_start(code[at])) {
      const std::size_t end = identifier_end(code, at);
      visit_identifier(at, end);
      at = end;
    } else {
      at = visit_other(at);
    }
  }
}

/// The same, for the identifiers only.
template <typename VisitIdentifier>
void walk_identifiers(std::string_view code, VisitIdentifier visit_identifier) {
  walk_tokens(code, visit_identifier, [](std::size_t at) { return at + 1; });
}

bool is_paste(std::string_view code, std::size_t at) {
  return code.substr(at, 2) == "##" || code.substr(at, 4) == "%:%:";
}

/// Walks the code's tokens: forbidden identifiers and token pasting.
void find_token_violations(const StrippedSource& source, const std::vector<ForbiddenName>& forbidden,
                           std::vector<SourceViolation>& out) {
  const std::string_view code = source.code;
  const auto identifier = [&](std::size_t at, std::size_t end) {
    if (const ForbiddenName* name = find_name(forbidden, code.substr(at, end - at))) {
      out.push_back({"", source.lines[at], name->name, qualified_name(code, at, end), name->why});
    }
  };
  const auto other = [&](std::size_t at) {
    if (!is_paste(code, at)) return at + 1;
    const std::size_t length = code[at] == '#' ? 2 : 4;
    out.push_back({"", source.lines[at], "##",
                   "the token-pasting operator " + std::string(code.substr(at, length)), kPasteWhy,
                   ForbiddenBy::grader});
    return at + length;
  };
  walk_tokens(code, identifier, other);
}

std::string include_text(const IncludeDirective& include) {
  switch (include.form) {
    case IncludeForm::angled:
      return "#" + include.directive + " <" + include.path + ">";
    case IncludeForm::quoted:
      return "#" + include.directive + " \"" + include.path + "\"";
    case IncludeForm::computed:
      break;
  }
  return "#" + include.directive + " " + include.path;
}

void find_include_violations(const StrippedSource& source, const std::vector<ForbiddenName>& forbidden,
                             std::vector<SourceViolation>& out) {
  for (const IncludeDirective& include : source.includes) {
    if (include.form == IncludeForm::computed) {
      out.push_back({"", include.line, "computed #include", include_text(include), kComputedIncludeWhy,
                     ForbiddenBy::grader});
      continue;
    }
    for (const ForbiddenName& name : forbidden) {
      if (path_names(include.path, name.name))
        out.push_back({"", include.line, name.name, include_text(include), name.why});
    }
  }
}

/// The path's words, lower-cased: split at every character that is not a
/// letter or digit, between a lower-case and an upper-case letter, before the
/// last capital of an acronym ("CUBScan": "cub", "scan") and between letters
/// and digits.
std::vector<std::string> path_words(std::string_view path) {
  std::vector<std::string> words(1);
  const auto kind = [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return std::isdigit(byte) != 0   ? 'd'
           : std::isupper(byte) != 0 ? 'U'
           : std::islower(byte) != 0 ? 'l'
                                     : ' ';
  };
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char now = kind(path[i]);
    const char before = i > 0 ? kind(path[i - 1]) : ' ';
    const char after = i + 1 < path.size() ? kind(path[i + 1]) : ' ';
    const bool letters_then_digit = (before == 'd') != (now == 'd') && before != ' ';
    const bool camel = before == 'l' && now == 'U';
    const bool acronym_end = before == 'U' && now == 'U' && after == 'l';
    if (now == ' ' || letters_then_digit || camel || acronym_end) {
      if (!words.back().empty()) words.emplace_back();
      if (now == ' ') continue;
    }
    words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(path[i])));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// ---- what no student file may use ----

// The list an instructor reads and extends (grader/README.md shows it too).
// Names are identifiers; the checks also catch their library spellings
// (symbol_of()), so list each once as the C library or C++ spells it.
std::vector<ForbiddenGroup> make_forbidden_everywhere() {
  const std::string fix = kFix;
  return {
      {"It ends the test program, or runs code when it ends, so the tests after it never report." + fix +
           "; report a failure by throwing (CUDA_CHECK does)",
       {"exit", "quick_exit", "_exit", "_Exit", "abort", "terminate", "set_terminate", "atexit",
        "at_quick_exit", "on_exit"},
       {},
       {}},
      {"It sends a signal or installs a signal handler, which can end or take over the test program." + fix,
       {"raise", "kill", "killpg", "tgkill", "pthread_kill", "sigqueue", "signal", "sigaction", "bsd_signal",
        "sysv_signal"},
       {},
       {}},
      {"It reads or changes the environment, through which the grader gives the tests their seed, rubric and "
       "results file." +
           fix,
       {"getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ", "_environ"},
       {},
       {}},
      {"It opens or writes files or file descriptors, and the tests' results file is one of them." + fix +
           " (printf to stdout is fine)",
       {"fopen",         "fdopen",        "tmpfile",       "mkstemp",        "mkostemp",
        "open",          "openat",        "creat",         "FILE",           "ofstream",
        "ifstream",      "fstream",       "filebuf",       "basic_ofstream", "basic_ifstream",
        "basic_fstream", "basic_filebuf", "stdio_filebuf", "filesystem",     "write",
        "pwrite",        "writev",        "pwritev",       "dprintf",        "vdprintf"},
       {},
       {}},
      {"It redirects or closes the program's output or another file descriptor, such as the tests' results "
       "file." +
           fix,
       {"freopen", "dup", "dup2", "dup3", "close", "close_range", "closefrom", "fclose", "fcntl"},
       {},
       {}},
      {"It starts another program or reaches into another process; the grader runs the tests in a process of "
       "their own." +
           fix,
       {"system", "popen", "fork", "vfork", "clone", "execl", "execle", "execlp", "execv", "execve", "execvp",
        "execvpe", "execveat", "fexecve", "posix_spawn", "posix_spawnp", "ptrace", "process_vm_readv",
        "process_vm_writev"},
       {},
       {}},
      {"It calls a function by a name or number that the grader cannot read, which could be any of these." +
           fix,
       {"syscall", "sysenter", "dlopen", "dlmopen", "dlsym", "dlvsym"},
       {},
       {}},
      {"The test harness (GoogleTest, workbook::testing) and the grader's variables (WORKBOOK_RESULTS, "
       "WORKBOOK_SEED, WORKBOOK_RUBRIC) run the tests and carry their results; a student file may not touch "
       "them." +
           fix,
       {"testing", "gtest", "RUN_ALL_TESTS", "WORKBOOK_RESULTS", "WORKBOOK_SEED", "WORKBOOK_RUBRIC"},
       {"gtest", "gmock", "testing"},
       {"WORKBOOK_RESULTS", "WORKBOOK_SEED", "WORKBOOK_RUBRIC"}},
      // A driver entry point reaches any driver function, host callbacks and contexts included.
      {"It starts a thread or a host callback: the grader times your code and the yardstick one after the "
       "other on an idle GPU, and a thread or callback of your own could run work between the calls, keeping "
       "the GPU busy while the yardstick runs. Your functions run on the caller's thread and only launch GPU "
       "work." +
           fix,
       {"pthread_create", "thrd_create", "timer_create", "jthread", "async", "cudaLaunchHostFunc",
        "cudaStreamAddCallback", "cudaGraphAddHostNode", "cudaGraphExecHostNodeSetParams",
        "cudaGraphHostNodeSetParams", "cudaGraphNodeTypeHost", "cudaUserObjectCreate", "cuLaunchHostFunc",
        "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "cuGetProcAddress"},
       {"thread", "threads", "pthread", "future", "execution", "omp"},
       {}},
      {"It changes a setting of the whole GPU that the yardstick shares (the L2 cache's persisting "
       "carve-out, the cache configuration, the device's limits): the grader times the yardstick on the same "
       "GPU, which would run under your settings. Use the GPU as the tests hand it to you." +
           fix,
       {"cudaDeviceSetLimit", "cudaLimitPersistingL2CacheSize", "cudaCtxResetPersistingL2Cache",
        "cudaAccessPolicyWindow", "accessPolicyWindow", "cudaStreamAttributeAccessPolicyWindow",
        "cudaLaunchAttributeAccessPolicyWindow", "cudaKernelNodeAttributeAccessPolicyWindow",
        "cudaAccessPropertyPersisting", "cudaStreamSetAttribute", "cudaGraphKernelNodeSetAttribute",
        "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig"},
       {},
       {},
       true},
  };
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// The library function that an identifier spells: __builtin_exit is exit;
/// glibc's internal and fortified names (__open64_2, __dprintf_chk,
/// __environ) and the 64-bit file names (open64, fopen64) are the plain ones.
std::string symbol_of(std::string_view token) {
  if (starts_with(token, "__builtin_")) token.remove_prefix(std::strlen("__builtin_"));
  if (starts_with(token, "__")) {
    while (!token.empty() && token.front() == '_') token.remove_prefix(1);
    for (const std::string_view suffix : {"_chk", "_2"}) {
      if (ends_with(token, suffix)) {
        token.remove_suffix(suffix.size());
        break;
      }
    }
  }
  if (token.size() > 2 && ends_with(token, "64")) token.remove_suffix(2);
  return std::string(token);
}

/// A name of forbidden_everywhere() and its group.
struct EverywhereName {
  const std::string* name = nullptr;
  const ForbiddenGroup* group = nullptr;
};

/// The listed name that @p token spells (see symbol_of()), or none.
EverywhereName everywhere_name(std::string_view token) {
  static const std::map<std::string, EverywhereName> names = [] {
    std::map<std::string, EverywhereName> out;
    for (const ForbiddenGroup& group : forbidden_everywhere()) {
      for (const std::string& name : group.names) out[symbol_of(name)] = {&name, &group};
    }
    return out;
  }();
  const auto found = names.find(symbol_of(token));
  return found == names.end() ? EverywhereName{} : found->second;
}

/// Whether the identifier at @p at is a member: after '.' (not '...') or '->'.
bool is_member(std::string_view code, std::size_t at) {
  const std::size_t before = skip_space_back(code, at);
  if (before >= 2 && code.substr(before - 2, 2) == "->") return true;
  return before >= 1 && code[before - 1] == '.' && (before < 2 || code[before - 2] != '.');
}

/// Mangled C++ names (_ZSt9terminatev is std::terminate) and every other
/// identifier starting with _Z, which the implementation reserves.
bool is_mangled(std::string_view token) {
  return starts_with(token, "_Z");
}

SourceViolation mangled_violation(std::size_t line, std::string found) {
  return {"", line, "_Z...", std::move(found), kMangledWhy, ForbiddenBy::grader};
}

void find_everywhere_tokens(const StrippedSource& source, std::vector<SourceViolation>& out) {
  const std::string_view code = source.code;
  walk_identifiers(code, [&](std::size_t at, std::size_t end) {
    const std::string_view token = code.substr(at, end - at);
    const EverywhereName hit = everywhere_name(token);
    if (is_mangled(token)) {
      out.push_back(mangled_violation(source.lines[at], std::string(token)));
    } else if (hit.name != nullptr && (hit.group->members_too || !is_member(code, at))) {
      out.push_back({"", source.lines[at], *hit.name, qualified_name(code, at, end), hit.group->why,
                     ForbiddenBy::grader});
    }
  });
}

void find_everywhere_includes(const StrippedSource& source, std::vector<SourceViolation>& out) {
  for (const IncludeDirective& include : source.includes) {
    if (include.form == IncludeForm::computed) continue;  // find_violations() refuses it.
    for (const ForbiddenGroup& group : forbidden_everywhere()) {
      for (const std::string& header : group.headers) {
        if (path_names(include.path, header))
          out.push_back({"", include.line, header, include_text(include), group.why, ForbiddenBy::grader});
      }
    }
  }
}

std::string shortened(const std::string& text) {
  constexpr std::size_t kMaxShown = 48;
  return text.size() <= kMaxShown ? text : text.substr(0, kMaxShown) + "...";
}

/// The words of an asm or alias string are code: "call exit@PLT", "exit;"
/// and an assembler name "exit" all reach exit, "syscall" and "int $0x80" the
/// kernel. A word right after '.' is part of an instruction or a longer
/// symbol name, not a function: PTX's cp.async and fence.proxy.async pass.
void check_string_words(const std::string& body, std::size_t line, const std::string& found,
                        std::vector<SourceViolation>& out) {
  std::string previous;
  for (std::size_t at = 0; at < body.size();) {
    const auto word_char = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    if (!word_char(body[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < body.size() && word_char(body[end])) ++end;
    const std::string word = body.substr(at, end - at);
    const EverywhereName hit = at > 0 && body[at - 1] == '.' ? EverywhereName{} : everywhere_name(word);
    if (is_mangled(word)) {
      out.push_back(mangled_violation(line, found));
    } else if (hit.name != nullptr) {
      out.push_back({"", line, *hit.name, found, hit.group->why, ForbiddenBy::grader});
    } else if (previous == "int" && (word == "0x80" || word == "128")) {
      const EverywhereName syscall = everywhere_name("syscall");
      out.push_back({"", line, *syscall.name, found, syscall.group->why, ForbiddenBy::grader});
    }
    previous = word;
    at = end;
  }
}

/// asm, __asm__, alias and weakref (as in __attribute__((alias("exit")))): the
/// keywords whose string operands name symbols or are instructions.
bool takes_code_strings(std::string_view token) {
  while (!token.empty() && token.front() == '_') token.remove_prefix(1);
  while (!token.empty() && token.back() == '_') token.remove_suffix(1);
  return token == "asm" || token == "alias" || token == "weakref";
}

bool is_asm_qualifier(std::string_view token) {
  while (!token.empty() && token.front() == '_') token.remove_prefix(1);
  while (!token.empty() && token.back() == '_') token.remove_suffix(1);
  return token == "volatile" || token == "goto" || token == "inline";
}

/// Checks the string literals between the parentheses after each asm,
/// __asm__, alias or weakref: an assembler name (void f() asm("exit")) or an
/// alias makes a declaration another function, and host asm can call anything.
void find_code_strings(const StrippedSource& source, std::vector<SourceViolation>& out) {
  const std::string_view code = source.code;
  walk_identifiers(code, [&](std::size_t at, std::size_t end) {
    const std::string_view keyword = code.substr(at, end - at);
    if (!takes_code_strings(keyword)) return;
    std::size_t open = skip_space(code, end);
    while (open < code.size() && is_ident_start(code[open]) &&
           is_asm_qualifier(code.substr(open, identifier_end(code, open) - open))) {
      open = skip_space(code, identifier_end(code, open));
    }
    if (at_or_nul(code, open) != '(') return;
    std::size_t close = open + 1;
    for (int depth = 1; close < code.size() && depth > 0; ++close) {
      depth += code[close] == '(' ? 1 : code[close] == ')' ? -1 : 0;
    }
    for (const StringLiteral& literal : source.literals) {
      if (literal.at > open && literal.at < close) {
        const std::string found = std::string(keyword) + "(\"" + shortened(literal.body) + "\")";
        check_string_words(literal.body, literal.line, found, out);
      }
    }
  });
}

/// Literals that contain a forbidden text, also when it is split over
/// adjacent literals ("WORKBOOK_" "RESULTS").
void find_everywhere_literals(const StrippedSource& source, std::vector<SourceViolation>& out) {
  const std::vector<StringLiteral>& literals = source.literals;
  for (std::size_t first = 0; first < literals.size();) {
    std::string joined = literals[first].body;
    std::size_t last = first;
    // Literals are blanked in the code too: only the gap between them counts.
    const auto adjacent = [&](std::size_t from, std::size_t to) {
      return std::all_of(source.code.begin() + static_cast<std::ptrdiff_t>(from),
                         source.code.begin() + static_cast<std::ptrdiff_t>(to), is_space);
    };
    while (last + 1 < literals.size() && adjacent(literals[last].end, literals[last + 1].at)) {
      ++last;
      joined += literals[last].body;
    }
    for (const ForbiddenGroup& group : forbidden_everywhere()) {
      for (const std::string& text : group.literals) {
        if (joined.find(text) != std::string::npos) {
          out.push_back({"", literals[first].line, text, "the string \"" + shortened(joined) + "\"",
                         group.why, ForbiddenBy::grader});
        }
      }
    }
    first = last + 1;
  }
}

// ---- files ----

std::string read_whole_file(const fs::path& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return "";
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// What a lab's check has seen and found, across the files it follows.
struct LabCheck {
  fs::path source_dir;
  std::vector<std::string> folders;  ///< Relative folders whose files are followed: "labs/07-x/".
  const std::vector<ForbiddenName>& forbidden;
  std::set<std::string> visited;
  std::vector<SourceViolation> violations;
  std::string unreadable;  ///< The first file that could not be read, with why.
};

bool in_folders(const LabCheck& check, const std::string& relative) {
  return std::any_of(check.folders.begin(), check.folders.end(),
                     [&relative](const std::string& folder) { return relative.rfind(folder, 0) == 0; });
}

/// The include's file when it is in one of the lab's folders: looked up next
/// to the including file (quoted) and in the lab's folder (an include
/// directory of the lab's build); empty otherwise.
std::string followed_include(const LabCheck& check, const std::string& from,
                             const IncludeDirective& include) {
  std::vector<fs::path> candidates;
  if (include.form == IncludeForm::quoted) candidates.push_back(fs::path(from).parent_path() / include.path);
  candidates.push_back(fs::path(check.folders.front()) / include.path);
  for (const fs::path& candidate : candidates) {
    const std::string relative = candidate.lexically_normal().generic_string();
    std::error_code error;
    if (in_folders(check, relative) && fs::is_regular_file(check.source_dir / relative, error))
      return relative;
  }
  return "";
}

void check_file(LabCheck& check, const std::string& relative) {
  if (!check.visited.insert(relative).second || !check.unreadable.empty()) return;
  std::string error;
  const std::string text = read_whole_file(check.source_dir / relative, error);
  if (!error.empty()) {
    check.unreadable = relative + " (" + error + ")";
    return;
  }
  const StrippedSource source = strip_source(text);
  std::vector<SourceViolation> found = find_violations(source, check.forbidden);
  std::set<std::pair<std::size_t, std::string>> seen;
  for (const SourceViolation& violation : found) seen.insert({violation.line, violation.found});
  for (SourceViolation& violation : find_violations_everywhere(source)) {
    // A name the lab lists itself is reported once, with the lab's reason.
    if (seen.insert({violation.line, violation.found}).second) found.push_back(std::move(violation));
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const SourceViolation& a, const SourceViolation& b) { return a.line < b.line; });
  std::set<std::size_t> flagged_lines;
  for (SourceViolation& violation : found) {
    violation.file = relative;
    flagged_lines.insert(violation.line);
    check.violations.push_back(std::move(violation));
  }
  for (const IncludeDirective& include : source.includes) {
    if (include.form == IncludeForm::computed || flagged_lines.count(include.line) != 0) continue;
    const std::string next = followed_include(check, relative, include);
    if (!next.empty()) check_file(check, next);
  }
}

/// Adds @p relative and the lab-folder files it includes, once each, to @p files.
void collect_files(LabCheck& check, const std::string& relative, std::vector<std::string>& files) {
  if (!check.visited.insert(relative).second) return;
  std::string error;
  const std::string text = read_whole_file(check.source_dir / relative, error);
  if (!error.empty()) return;
  files.push_back(relative);
  for (const IncludeDirective& include : strip_source(text).includes) {
    if (include.form == IncludeForm::computed) continue;
    const std::string next = followed_include(check, relative, include);
    if (!next.empty()) collect_files(check, next, files);
  }
}

std::string refusal(const std::string& file, bool solutions, const std::vector<SourceViolation>& violations) {
  const auto by = [&violations](ForbiddenBy who) {
    return std::any_of(violations.begin(), violations.end(),
                       [who](const SourceViolation& violation) { return violation.by == who; });
  };
  const std::string what = !by(ForbiddenBy::grader) ? "what this lab forbids"
                           : by(ForbiddenBy::lab)   ? "what this lab forbids and what no student file may use"
                                                    : "what no student file may use";
  std::string text = solutions
                         ? "the reference solution " + file + " uses " + what +
                               " (a bug in the solution), so the lab scores 0 and its tests were not run:"
                         : file + " uses " + what +
                               ", so the lab scores 0 and its tests were not run. Remove each of these "
                               "and grade again:";
  for (const SourceViolation& violation : violations) text += "\n- " + describe_violation(violation);
  return text;
}

}  // namespace

StrippedSource strip_source(std::string_view text) {
  StrippedSource source = splice_lines(text);
  const std::string spliced = source.code;
  Lexed lexed;
  for (std::size_t at = 0; at < source.code.size();) at = lex_one(source.code, at, lexed);
  find_includes(source, spliced, lexed.strings);
  for (StringLiteral& literal : lexed.literals) literal.line = source.lines[literal.at];
  source.literals = std::move(lexed.literals);
  return source;
}

bool path_names(std::string_view path, std::string_view name) {
  std::string wanted;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      wanted += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (wanted.empty()) return false;
  const std::vector<std::string> words = path_words(path);
  for (std::size_t first = 0; first < words.size(); ++first) {
    std::string joined;
    for (std::size_t last = first; last < words.size() && joined.size() < wanted.size(); ++last) {
      joined += words[last];
      if (joined == wanted) return true;
    }
  }
  return false;
}

std::vector<SourceViolation> find_violations(const StrippedSource& source,
                                             const std::vector<ForbiddenName>& forbidden) {
  std::vector<SourceViolation> violations;
  find_include_violations(source, forbidden, violations);
  find_token_violations(source, forbidden, violations);
  std::stable_sort(violations.begin(), violations.end(),
                   [](const SourceViolation& a, const SourceViolation& b) { return a.line < b.line; });
  return violations;
}

std::vector<SourceViolation> find_violations(std::string_view text,
                                             const std::vector<ForbiddenName>& forbidden) {
  return find_violations(strip_source(text), forbidden);
}

const std::vector<ForbiddenGroup>& forbidden_everywhere() {
  static const std::vector<ForbiddenGroup> groups = make_forbidden_everywhere();
  return groups;
}

std::vector<SourceViolation> find_violations_everywhere(const StrippedSource& source) {
  std::vector<SourceViolation> violations;
  find_everywhere_includes(source, violations);
  find_everywhere_tokens(source, violations);
  find_code_strings(source, violations);
  find_everywhere_literals(source, violations);
  std::stable_sort(violations.begin(), violations.end(),
                   [](const SourceViolation& a, const SourceViolation& b) { return a.line < b.line; });
  return violations;
}

std::vector<SourceViolation> find_violations_everywhere(std::string_view text) {
  return find_violations_everywhere(strip_source(text));
}

std::string describe_violation(const SourceViolation& violation) {
  return (violation.file.empty() ? std::string() : violation.file + ":") + std::to_string(violation.line) +
         ": remove " + violation.found + " ('" + violation.name + "' is forbidden in " +
         (violation.by == ForbiddenBy::lab ? "this lab" : "every lab") + "). " + violation.why;
}

std::string lab_source_file(const LabEntry& lab, bool solutions) {
  return std::string(solutions ? "solutions/" : "labs/") + lab.id + "/" + lab.base + ".cu";
}

std::vector<std::string> lab_source_files(const std::string& source_dir, const LabEntry& lab,
                                          bool solutions) {
  const std::vector<ForbiddenName> none;
  LabCheck check{source_dir, {"labs/" + lab.id + "/"}, none, {}, {}, {}};
  if (solutions) check.folders.push_back("solutions/" + lab.id + "/");
  std::vector<std::string> files;
  collect_files(check, lab_source_file(lab, solutions), files);
  return files;
}

std::string check_lab_source(const std::string& source_dir, const LabEntry& lab, bool solutions,
                             const std::vector<ForbiddenName>& forbidden) {
  const std::string file = lab_source_file(lab, solutions);
  std::error_code error;
  // Without sources there is nothing to check (the grader's own tests grade
  // fake labs); a lab that forbids names of its own insists on its file.
  if (forbidden.empty() &&
      (source_dir.empty() || lab.base.empty() || !fs::exists(fs::path(source_dir) / file, error)))
    return "";
  if (source_dir.empty() || lab.base.empty()) {
    return "the grader cannot find " + file +
           " to check it for forbidden names (the build manifest gives no source_dir or base), so the lab "
           "scores 0 and its tests were not run; run ./workbook grade, which rebuilds the manifest";
  }
  LabCheck check{source_dir, {"labs/" + lab.id + "/"}, forbidden, {}, {}, {}};
  if (solutions) check.folders.push_back("solutions/" + lab.id + "/");
  check_file(check, file);
  if (!check.unreadable.empty()) {
    return "the grader could not read " + check.unreadable +
           " to check it for forbidden names, so the lab scores 0 and its tests were not run";
  }
  return check.violations.empty() ? "" : refusal(file, solutions, check.violations);
}

}  // namespace workbook::grader
