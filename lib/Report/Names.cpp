//===- Names.cpp - function names as the report shows them ----------------===//
//
// C++ names of template-heavy code run to hundreds of characters (one
// std::__introsort_loop<...> instance is 7 lines in a table cell), so by
// default the report shows them as perf report's and hotspot's short form:
// the qualified name without template arguments, parameters or return
// type. Suffixes the compiler or linker add (".cold", ".part.0", "@PLT")
// are kept.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Report.h"
#include "llvm/Demangle/Demangle.h"
#include <cstdlib>

using namespace llvm;

namespace lbr2prof {

/// S without the text inside <...> at any depth, and without (...) other
/// than "(anonymous namespace)".
static std::string dropArguments(StringRef S) {
  std::string R;
  int Angle = 0, Paren = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (Paren == 0 && C == '(' && S.substr(I).starts_with("(anonymous namespace)")) {
      if (Angle == 0)
        R += "(anonymous namespace)";
      I += StringRef("(anonymous namespace)").size() - 1;
      continue;
    }
    if (C == '<')
      ++Angle;
    else if (C == '>' && Angle > 0)
      --Angle;
    else if (C == '(')
      ++Paren;
    else if (C == ')' && Paren > 0)
      --Paren;
    else if (Angle == 0 && Paren == 0)
      R += C;
  }
  return R;
}

std::string shortDemangle(StringRef Name) {
  // "_ZN1a1fEv.cold@PLT": demangle the part before the first '.' or '@'.
  size_t Cut = Name.find_first_of(".@");
  StringRef Core = Name.substr(0, Cut);
  StringRef Suffix = Cut == StringRef::npos ? StringRef() : Name.substr(Cut);
  ItaniumPartialDemangler D;
  std::string CoreS = Core.str();
  if (!Core.starts_with("_Z") || D.partialDemangle(CoreS.c_str()))
    return demangle(Name);
  if (!D.isFunction())
    return demangle(Core) + Suffix.str();
  char *Ctx = D.getFunctionDeclContextName(nullptr, nullptr);
  char *Base = D.getFunctionBaseName(nullptr, nullptr);
  std::string R;
  if (Ctx && *Ctx)
    R = dropArguments(Ctx) + "::";
  // The base name has no template arguments; an operator's name keeps its
  // '<' or '()' ("operator<", "operator()").
  R += Base ? Base : "";
  std::free(Ctx);
  std::free(Base);
  if (R.empty())
    return demangle(Name);
  return R + Suffix.str();
}

std::string displayName(StringRef Name, ReportDemangle Mode) {
  switch (Mode) {
  case ReportDemangle::Short:
    return shortDemangle(Name);
  case ReportDemangle::Full:
    return demangle(Name);
  case ReportDemangle::None:
    break;
  }
  return Name.str();
}

} // namespace lbr2prof
