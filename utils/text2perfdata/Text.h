//===- Text.h - lines, key=value arguments and numbers of the text form ---===//
//
// The lexical layer of text2perfdata: splits one input line into a keyword
// and its `key=value` arguments (double quotes group values with spaces, `#`
// outside quotes starts a comment), parses numbers (decimal, 0x hex, negative
// decimal as two's complement, `@label@` / `@label+0x10@`), and records the
// first error with its line so the tool can print `FILE:LINE: what`.
// The grammar itself is documented in docs/text2perfdata.md.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_TEXT_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_TEXT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lbr2prof {
namespace t2p {

/// Collects the first error; later ones are dropped because they usually
/// follow from the first.
class Diag {
public:
  /// Records an error at input line \p Line (0 = no line) and returns false,
  /// so callers can write `return D.error(...)`.
  bool error(unsigned Line, const std::string &Msg) {
    if (!Failed) {
      Failed = true;
      ErrLine = Line;
      ErrMsg = Msg;
    }
    return false;
  }
  bool failed() const { return Failed; }
  unsigned line() const { return ErrLine; }
  const std::string &message() const { return ErrMsg; }

private:
  bool Failed = false;
  unsigned ErrLine = 0;
  std::string ErrMsg;
};

/// Symbol values that `@name@` refers to (already biased).
using LabelMap = std::map<std::string, uint64_t>;

/// One `key=value` argument of a directive.
struct Arg {
  std::string Key;
  std::string Value;
  bool Used = false;
};

/// One non-blank input line: `KEYWORD word... key=value...`.
struct Directive {
  unsigned Line = 0;
  std::string Keyword;
  /// Arguments without `=` (e.g. `off` in `compress off`).
  std::vector<std::string> Words;
  std::vector<Arg> Args;
};

/// Splits \p Text (line number \p LineNo) into \p Out. Returns false with an
/// error in \p D on an unterminated quote or a malformed argument. A blank or
/// comment-only line yields an empty Keyword.
bool lexLine(const std::string &Text, unsigned LineNo, Directive &Out, Diag &D);

/// Parses one number: decimal, 0x hex, `-N` (two's complement), or a label
/// `@name@`, `@name+OFF@`, `@name-OFF@`. Returns false and fills \p Why.
bool parseNumber(const std::string &S, const LabelMap &Labels, uint64_t &V,
                 std::string &Why);

/// Parses hex bytes ("0011ab", optional 0x prefix, optional spaces, `:` or
/// `,` between bytes). Returns false and fills \p Why.
bool parseHexBytes(const std::string &S, std::vector<uint8_t> &Out,
                   std::string &Why);

/// Splits \p S at any character of \p Seps, dropping empty pieces.
std::vector<std::string> splitAny(const std::string &S, const char *Seps);

/// ASCII upper-case copy.
std::string upper(const std::string &S);

/// Typed access to a directive's arguments. Every getter marks the key
/// used; a parse error goes to the Diag and the default is returned, so a
/// caller reads all its keys and then checks `D.failed()` once. finish()
/// reports keys nobody asked for.
class ArgReader {
public:
  ArgReader(Directive &Dir, Diag &D, const LabelMap &Labels)
      : Dir(Dir), D(D), Labels(Labels) {}

  unsigned line() const { return Dir.Line; }
  bool has(const char *Key) const;
  /// The raw string, or \p Default when absent.
  std::string str(const char *Key, const std::string &Default = "");
  uint64_t u64(const char *Key, uint64_t Default = 0);
  /// Like u64() but errors when the value does not fit \p Bits bits
  /// (negative decimals are accepted when they fit as signed).
  uint64_t uN(const char *Key, unsigned Bits, uint64_t Default = 0);
  bool flag(const char *Key, bool Default = false);
  std::vector<uint64_t> list(const char *Key);
  std::vector<uint8_t> bytes(const char *Key);
  /// A `|`-separated set of symbolic names from \p Names (index = bit) or a
  /// number.
  uint64_t bits(const char *Key, const char *const *Names, unsigned NumNames,
                uint64_t Default = 0);
  /// Errors for every argument not read; returns !D.failed().
  bool finish();
  /// Reports an error about this directive.
  bool error(const std::string &Msg) { return D.error(Dir.Line, Msg); }
  /// Marks \p Key as consumed without reading it.
  void consume(const char *Key);
  const Directive &directive() const { return Dir; }
  /// The bare words of the line; a directive that accepts some (e.g.
  /// `compress off`) clears them before finish().
  std::vector<std::string> &words() { return Dir.Words; }
  /// All arguments, for directives whose keys are free names (`label`).
  std::vector<Arg> &args() { return Dir.Args; }
  const LabelMap &labels() const { return Labels; }
  Diag &diag() { return D; }

private:
  Arg *find(const char *Key);
  Directive &Dir;
  Diag &D;
  const LabelMap &Labels;
};

} // namespace t2p
} // namespace lbr2prof

#endif
