// A thread's CPU context as a minidump holds it (Breakpad's MDRawContext*
// layouts, which follow Windows' CONTEXT where there is one): which CPU it
// is for, and its registers under the names Breakpad's postfix rules use.
// The layout is told by the context's size and its flags word, as
// Breakpad's processor tells it; contexts a little off the standard size
// (lldb's 720-byte amd64 ones, XSAVE-extended ones) are read for what
// they hold, with a note saying so.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct DecodedContext {
  SnapshotCpu cpu = SnapshotCpu::Unknown;
  RegisterValues registers;
  std::string note; // a deviation from the standard layout that was read anyway
};

// `hint`: the CPU SystemInfo names, for contexts whose flags do not say.
// nullopt, with `problem` saying why, when the bytes are no context known.
std::optional<DecodedContext> decodeContext(llvm::StringRef bytes, SnapshotCpu hint,
                                            std::string& problem);

} // namespace dumpsyms
