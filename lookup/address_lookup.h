// Answers "what is at this address" from a symbol file's model, as the
// processor would: the FUNC covering it with its line and inlined calls
// (innermost first), else the PUBLIC below it when no FUNC starts between.
// Addresses are module-relative.
#pragma once

#include "symbol_writer/module.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct SourceFrame {
  std::string function;
  std::string file;  // "" when unknown
  uint32_t line = 0; // 0 when unknown
  bool inlined = false;
  // Where the code of this frame starts: the FUNC range's start, or for
  // an inlined call the start of its range that holds the address.
  uint64_t start = 0;
};

struct AddressInfo {
  std::vector<SourceFrame> frames; // innermost first; empty when no FUNC covers it
  std::optional<std::string> public_name;
  uint64_t public_offset = 0;
  uint64_t function_start = 0;        // of the FUNC range, when frames is not empty
  std::optional<uint64_t> line_start; // of the line record holding the address
  uint64_t parameter_size = 0;        // the FUNC's or the PUBLIC's
};

class AddressLookup {
public:
  explicit AddressLookup(Module module);

  AddressInfo lookup(uint64_t address) const;
  const Module& module() const { return module_; }

private:
  struct FunctionRange {
    uint64_t start, end;
    size_t function;
  };
  Module module_;
  std::vector<FunctionRange> ranges_; // sorted by start
  std::vector<size_t> publics_;       // indexes into module_.publics, by address
};

} // namespace dumpsyms
