//===- Builder.h - directives to a Description ----------------------------===//
//
// Feeds the lexed lines, in order, into a Description: `header`, `attr`,
// `feature`, `build_id`, `compress` and `label` lines set up the file;
// every other keyword is a data record encoded on the spot (so attrs must
// come before the first record, which freezes them).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_BUILDER_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_BUILDER_H

#include "Model.h"
#include "Text.h"

namespace lbr2prof {
namespace t2p {

class Builder {
public:
  /// \p Labels may grow through `label` lines.
  Builder(Description &Out, Diag &D, LabelMap &Labels)
      : Desc(Out), D(D), Labels(Labels) {}

  /// Processes one non-blank line. Returns false on error (see Diag).
  bool add(Directive &Dir);
  /// Ends the input (\p LastLine for messages) and checks the whole.
  bool finish(unsigned LastLine);

private:
  bool addHeader(ArgReader &A);
  bool addAttr(ArgReader &A);
  bool addFeature(ArgReader &A);
  bool addBuildId(ArgReader &A);
  bool addCompress(ArgReader &A);
  bool addLabel(ArgReader &A);
  /// Assigns missing ids and checks perf's multi-attr rules.
  bool freezeAttrs(unsigned Line);

  Description &Desc;
  Diag &D;
  LabelMap &Labels;
  bool Frozen = false;
  /// Index of the open compression group, or -1.
  int OpenGroup = -1;
};

} // namespace t2p
} // namespace lbr2prof

#endif
