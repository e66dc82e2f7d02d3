// One place a module's symbols were looked for, and what it answered. The
// symbol supplier and the symbol servers record these as plain values, in
// the order they tried them; the command lines print them (`symtool
// stackwalk --explain`, `minidump_stackwalk -v`), so that a stack without
// names says why.
#pragma once

#include <string>

namespace dumpsyms {

struct SymbolAttempt {
  std::string where;  // a file path, a store pattern ("<store>/*/<ID>/*.sym") or a URL
  std::string answer; // "found", "missing", "HTTP 404 (not there)", ...
};

} // namespace dumpsyms
