// Frames in crash text: one line of a backtrace turned into what it says
// (a module, and an offset in it or a symbol and an offset from it),
// without resolving anything. The formats:
//   glibc backtrace_symbols:  /path/libfoo.so(func+0x1d) [0x7f…]   ./prog(+0x1234) [0x…]
//   Solaris printstack:       obj'func+0x10 [0xPC]   /tmp/q:foo+0x8
//   module + offset:          [0xPC: [0xDYNAMIC: ]]/usr/lib/libfoo.so + 0x58d7e9
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct FrameLine {
  std::string module;              // as written (a path or a name)
  std::optional<uint64_t> offset;  // module-relative
  std::string symbol;              // or a symbol (mangled or not) ...
  uint64_t symbol_offset = 0;      // ... and the offset from it
  std::optional<uint64_t> dynamic; // the PT_DYNAMIC offset the crashing process saw
  std::optional<uint64_t> address; // the absolute pc the crashing process logged
};

std::optional<FrameLine> parseFrameLine(llvm::StringRef line);

} // namespace dumpsyms
