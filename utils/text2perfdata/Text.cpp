//===- Text.cpp - lexing and number parsing for text2perfdata ------------===//
//
// Implements the line lexer, number/label parsing and the typed argument
// reader declared in Text.h. Nothing here knows about perf records.
//
//===----------------------------------------------------------------------===//
#include "Text.h"

#include <cctype>

namespace lbr2prof {
namespace t2p {

std::string upper(const std::string &S) {
  std::string R = S;
  for (char &C : R)
    C = (char)std::toupper((unsigned char)C);
  return R;
}

std::vector<std::string> splitAny(const std::string &S, const char *Seps) {
  std::vector<std::string> Out;
  std::string Cur;
  for (char C : S) {
    bool IsSep = false;
    for (const char *P = Seps; *P; ++P)
      IsSep |= C == *P;
    if (IsSep) {
      if (!Cur.empty())
        Out.push_back(Cur);
      Cur.clear();
    } else {
      Cur += C;
    }
  }
  if (!Cur.empty())
    Out.push_back(Cur);
  return Out;
}

// A line is a sequence of tokens separated by blanks. A token is either a
// bare word or `key=value`; the value may be "double quoted" (with \" and
// \\ escapes) to hold blanks or `#`.
bool lexLine(const std::string &Text, unsigned LineNo, Directive &Out,
             Diag &D) {
  Out = Directive();
  Out.Line = LineNo;
  size_t I = 0, N = Text.size();
  bool First = true;
  while (true) {
    while (I < N && (Text[I] == ' ' || Text[I] == '\t' || Text[I] == '\r'))
      ++I;
    if (I >= N || Text[I] == '#')
      break;
    std::string Key, Value;
    bool HasEq = false;
    while (I < N && Text[I] != ' ' && Text[I] != '\t' && Text[I] != '\r' &&
           Text[I] != '=') {
      if (Text[I] == '"')
        return D.error(LineNo, "a quote may only start a value (key=\"...\")");
      Key += Text[I++];
    }
    if (I < N && Text[I] == '=') {
      HasEq = true;
      ++I;
      if (I < N && Text[I] == '"') {
        ++I;
        bool Closed = false;
        while (I < N) {
          char C = Text[I++];
          if (C == '\\' && I < N) {
            Value += Text[I++];
            continue;
          }
          if (C == '"') {
            Closed = true;
            break;
          }
          Value += C;
        }
        if (!Closed)
          return D.error(LineNo, "unterminated quoted value for '" + Key + "'");
        if (I < N && Text[I] != ' ' && Text[I] != '\t' && Text[I] != '\r')
          return D.error(LineNo, "expected a blank after the closing quote "
                                 "of '" +
                                     Key + "'");
      } else {
        while (I < N && Text[I] != ' ' && Text[I] != '\t' && Text[I] != '\r')
          Value += Text[I++];
      }
    }
    if (Key.empty())
      return D.error(LineNo, "expected 'key=value', found '=" + Value + "'");
    if (First) {
      if (HasEq)
        return D.error(LineNo,
                       "expected a directive keyword before '" + Key + "=...'");
      Out.Keyword = Key;
      First = false;
      continue;
    }
    if (!HasEq) {
      Out.Words.push_back(Key);
      continue;
    }
    for (const Arg &A : Out.Args)
      if (A.Key == Key)
        return D.error(LineNo, "key '" + Key + "' given twice");
    Out.Args.push_back({Key, Value, false});
  }
  return true;
}

static bool parsePlain(const std::string &S, uint64_t &V, std::string &Why) {
  if (S.empty()) {
    Why = "expected a number, found nothing";
    return false;
  }
  bool Neg = false;
  size_t I = 0;
  if (S[0] == '-') {
    Neg = true;
    I = 1;
  }
  unsigned Base = 10;
  if (S.size() > I + 1 && S[I] == '0' && (S[I + 1] == 'x' || S[I + 1] == 'X')) {
    Base = 16;
    I += 2;
  }
  if (I >= S.size()) {
    Why = "expected digits in '" + S + "'";
    return false;
  }
  uint64_t R = 0;
  for (; I < S.size(); ++I) {
    char C = S[I];
    unsigned Dig;
    if (C >= '0' && C <= '9')
      Dig = C - '0';
    else if (Base == 16 && C >= 'a' && C <= 'f')
      Dig = C - 'a' + 10;
    else if (Base == 16 && C >= 'A' && C <= 'F')
      Dig = C - 'A' + 10;
    else {
      Why = "expected a number (decimal or 0x hex), found '" + S + "'";
      return false;
    }
    if (R > (UINT64_MAX - Dig) / Base) {
      Why = "number '" + S + "' does not fit in 64 bits";
      return false;
    }
    R = R * Base + Dig;
  }
  V = Neg ? (uint64_t)0 - R : R;
  return true;
}

bool parseNumber(const std::string &S, const LabelMap &Labels, uint64_t &V,
                 std::string &Why) {
  if (S.size() >= 2 && S.front() == '@') {
    if (S.back() != '@' || S.size() < 3) {
      Why = "expected a label '@name@' or '@name+OFF@', found '" + S + "'";
      return false;
    }
    std::string Body = S.substr(1, S.size() - 2);
    size_t Op = Body.find_first_of("+-", 1);
    std::string Name = Body.substr(0, Op);
    uint64_t Off = 0;
    bool Minus = false;
    if (Op != std::string::npos) {
      Minus = Body[Op] == '-';
      if (!parsePlain(Body.substr(Op + 1), Off, Why))
        return false;
    }
    auto It = Labels.find(Name);
    if (It == Labels.end()) {
      Why = "unknown label '" + Name +
            "' (give --symbols ELF or a 'label' "
            "line)";
      return false;
    }
    V = Minus ? It->second - Off : It->second + Off;
    return true;
  }
  return parsePlain(S, V, Why);
}

bool parseHexBytes(const std::string &S, std::vector<uint8_t> &Out,
                   std::string &Why) {
  Out.clear();
  std::string Digits;
  size_t I = 0;
  if (S.size() >= 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X'))
    I = 2;
  for (; I < S.size(); ++I) {
    char C = S[I];
    if (C == ' ' || C == ':' || C == ',' || C == '\t')
      continue;
    if (!std::isxdigit((unsigned char)C)) {
      Why = "expected hex bytes, found '" + std::string(1, C) + "'";
      return false;
    }
    Digits += C;
  }
  if (Digits.size() % 2) {
    Why = "hex bytes need an even number of digits";
    return false;
  }
  for (size_t J = 0; J < Digits.size(); J += 2)
    Out.push_back((uint8_t)std::stoul(Digits.substr(J, 2), nullptr, 16));
  return true;
}

Arg *ArgReader::find(const char *Key) {
  for (Arg &A : Dir.Args)
    if (A.Key == Key) {
      A.Used = true;
      return &A;
    }
  return nullptr;
}

bool ArgReader::has(const char *Key) const {
  for (const Arg &A : Dir.Args)
    if (A.Key == Key)
      return true;
  return false;
}

void ArgReader::consume(const char *Key) { find(Key); }

std::string ArgReader::str(const char *Key, const std::string &Default) {
  Arg *A = find(Key);
  return A ? A->Value : Default;
}

uint64_t ArgReader::u64(const char *Key, uint64_t Default) {
  Arg *A = find(Key);
  if (!A)
    return Default;
  uint64_t V = 0;
  std::string Why;
  if (!parseNumber(A->Value, Labels, V, Why)) {
    D.error(Dir.Line, std::string(Key) + ": " + Why);
    return Default;
  }
  return V;
}

uint64_t ArgReader::uN(const char *Key, unsigned Bits, uint64_t Default) {
  Arg *A = find(Key);
  if (!A)
    return Default;
  uint64_t V = 0;
  std::string Why;
  if (!parseNumber(A->Value, Labels, V, Why)) {
    D.error(Dir.Line, std::string(Key) + ": " + Why);
    return Default;
  }
  if (Bits >= 64)
    return V;
  uint64_t Mask = (1ULL << Bits) - 1;
  bool NegOk = !A->Value.empty() && A->Value[0] == '-' &&
               (int64_t)V >= -(int64_t)(1ULL << (Bits - 1));
  if (V > Mask && !NegOk) {
    D.error(Dir.Line, std::string(Key) + ": value " + A->Value +
                          " does not fit in " + std::to_string(Bits) + " bits");
    return Default;
  }
  return V & Mask;
}

bool ArgReader::flag(const char *Key, bool Default) {
  Arg *A = find(Key);
  if (!A)
    return Default;
  if (A->Value == "1" || A->Value == "yes" || A->Value == "true")
    return true;
  if (A->Value == "0" || A->Value == "no" || A->Value == "false")
    return false;
  D.error(Dir.Line,
          std::string(Key) + ": expected 0 or 1, found '" + A->Value + "'");
  return Default;
}

std::vector<uint64_t> ArgReader::list(const char *Key) {
  std::vector<uint64_t> Out;
  Arg *A = find(Key);
  if (!A)
    return Out;
  for (const std::string &P : splitAny(A->Value, ", ")) {
    uint64_t V = 0;
    std::string Why;
    if (!parseNumber(P, Labels, V, Why)) {
      D.error(Dir.Line, std::string(Key) + ": " + Why);
      return {};
    }
    Out.push_back(V);
  }
  return Out;
}

std::vector<uint8_t> ArgReader::bytes(const char *Key) {
  std::vector<uint8_t> Out;
  Arg *A = find(Key);
  if (!A)
    return Out;
  std::string Why;
  if (!parseHexBytes(A->Value, Out, Why))
    D.error(Dir.Line, std::string(Key) + ": " + Why);
  return Out;
}

uint64_t ArgReader::bits(const char *Key, const char *const *Names,
                         unsigned NumNames, uint64_t Default) {
  Arg *A = find(Key);
  if (!A)
    return Default;
  uint64_t R = 0;
  for (const std::string &P : splitAny(A->Value, "|,")) {
    std::string U = upper(P);
    bool Found = false;
    for (unsigned I = 0; I < NumNames && !Found; ++I)
      if (Names[I] && U == Names[I]) {
        R |= 1ULL << I;
        Found = true;
      }
    if (Found)
      continue;
    uint64_t V = 0;
    std::string Why;
    if (!parseNumber(P, Labels, V, Why)) {
      std::string Known;
      for (unsigned I = 0; I < NumNames; ++I)
        if (Names[I])
          Known += std::string(Known.empty() ? "" : " ") + Names[I];
      D.error(Dir.Line, std::string(Key) + ": unknown name '" + P +
                            "' (known: " + Known + ")");
      return Default;
    }
    R |= V;
  }
  return R;
}

bool ArgReader::finish() {
  for (const Arg &A : Dir.Args)
    if (!A.Used)
      D.error(Dir.Line,
              "unknown key '" + A.Key + "' for '" + Dir.Keyword + "'");
  for (const std::string &W : Dir.Words)
    D.error(Dir.Line, "unexpected word '" + W + "' for '" + Dir.Keyword +
                          "' (expected key=value)");
  return !D.failed();
}

} // namespace t2p
} // namespace lbr2prof
