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

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kNpos = std::string::npos;
// The standard's limit on the delimiter of a raw string literal.
constexpr std::size_t kMaxRawDelimiter = 16;

const char* const kPasteWhy =
    "A lab that forbids names forbids pasting tokens too: a pasted name cannot be checked";
const char* const kComputedIncludeWhy =
    "Write the header's path itself (#include <path> or #include \"path\"), so that the grader can check it";

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

/// Lexes the identifier at @p at; when it is the prefix of a literal
/// (R"(...)", u8"...", L'x'), blanks prefix and literal. Returns the end.
std::size_t lex_identifier(std::string& code, std::size_t at) {
  const std::size_t end = identifier_end(code, at);
  const char next = at_or_nul(code, end);
  if (next != '"' && next != '\'') return end;
  const std::string_view prefix(code.data() + at, end - at);
  std::size_t literal_end = kNpos;
  if (next == '"' && is_raw_prefix(prefix)) literal_end = raw_string_end(code, end);
  if (literal_end == kNpos && (is_encoding_prefix(prefix) || is_raw_prefix(prefix)))
    literal_end = quoted_end(code, end);
  if (literal_end == kNpos) return end;
  blank(code, at, literal_end);
  return literal_end;
}

/// Lexes one token (or character) at @p at, blanking it when it is a comment
/// or a literal; plain "..." strings are recorded in @p strings (start -> end).
std::size_t lex_one(std::string& code, std::size_t at, std::map<std::size_t, std::size_t>& strings) {
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
    if (c == '"') strings[at] = end;
  } else if (starts_number(code, at)) {
    return number_end(code, at);
  } else if (is_ident_start(c)) {
    return lex_identifier(code, at);
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

bool is_paste(std::string_view code, std::size_t at) {
  return code.substr(at, 2) == "##" || code.substr(at, 4) == "%:%:";
}

/// Walks the code's tokens: forbidden identifiers and token pasting.
void find_token_violations(const StrippedSource& source, const std::vector<ForbiddenName>& forbidden,
                           std::vector<SourceViolation>& out) {
  const std::string_view code = source.code;
  for (std::size_t at = 0; at < code.size();) {
    if (starts_number(code, at)) {
      at = number_end(code, at);
    } else if (is_ident_start(code[at])) {
      const std::size_t end = identifier_end(code, at);
      if (const ForbiddenName* name = find_name(forbidden, code.substr(at, end - at))) {
        out.push_back({"", source.lines[at], name->name, qualified_name(code, at, end), name->why});
      }
      at = end;
    } else if (is_paste(code, at)) {
      const std::size_t length = code[at] == '#' ? 2 : 4;
      out.push_back({"", source.lines[at], "##",
                     "the token-pasting operator " + std::string(code.substr(at, length)), kPasteWhy});
      at += length;
    } else {
      ++at;
    }
  }
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
      out.push_back({"", include.line, "computed #include", include_text(include), kComputedIncludeWhy});
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

std::string refusal(const std::string& file, bool solutions, const std::vector<SourceViolation>& violations) {
  std::string text = solutions
                         ? "the reference solution " + file +
                               " uses what this lab forbids (a bug in the solution), so the lab scores "
                               "0 and its tests were not run:"
                         : file +
                               " uses what this lab forbids, so the lab scores 0 and its tests were not "
                               "run. Remove each of these and grade again:";
  for (const SourceViolation& violation : violations) text += "\n- " + describe_violation(violation);
  return text;
}

}  // namespace

StrippedSource strip_source(std::string_view text) {
  StrippedSource source = splice_lines(text);
  const std::string spliced = source.code;
  std::map<std::size_t, std::size_t> strings;
  for (std::size_t at = 0; at < source.code.size();) at = lex_one(source.code, at, strings);
  find_includes(source, spliced, strings);
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

std::string describe_violation(const SourceViolation& violation) {
  return (violation.file.empty() ? std::string() : violation.file + ":") + std::to_string(violation.line) +
         ": remove " + violation.found + " ('" + violation.name + "' is forbidden in this lab). " +
         violation.why;
}

std::string lab_source_file(const LabEntry& lab, bool solutions) {
  return std::string(solutions ? "solutions/" : "labs/") + lab.id + "/" + lab.base + ".cu";
}

std::string check_lab_source(const std::string& source_dir, const LabEntry& lab, bool solutions,
                             const std::vector<ForbiddenName>& forbidden) {
  if (forbidden.empty()) return "";
  const std::string file = lab_source_file(lab, solutions);
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
