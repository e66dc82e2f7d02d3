// Answers "what is at this address" from a symbol file's index, as the
// processor would from the text: the FUNC covering it with its line and
// inlined calls (innermost first), else the PUBLIC below it when no FUNC
// starts between; the STACK CFI and STACK WIN records that unwind it; the
// address a function or symbol name stands for. Addresses are
// module-relative. The index is read lazily (symbol_file/index/index_file.h);
// should it turn out damaged, the lookup asks for a rebuilt one once and
// answers again from that.
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "symbol_file/index/index_file.h"
#include "symbol_file/model/module.h"

#include <cstdint>
#include <functional>
#include <memory>
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

// The MODULE and INFO records, and whether the parser skipped lines.
struct ModuleHeading {
  std::string os, cpu;
  DebugId debug_id;
  std::string name;
  CodeId code_id;
  std::string code_file;
  std::vector<std::string> extra_info;
  uint64_t load_address = 0;
  bool corrupt = false; // Breakpad's processor would call these symbols corrupt
};

class AddressLookup {
public:
  // A fresh index for the same symbol file (rebuilt from its text), or why not.
  using Rebuild = std::function<llvm::Expected<std::unique_ptr<IndexFile>>()>;

  static llvm::Expected<AddressLookup> open(std::unique_ptr<IndexFile> index,
                                            Rebuild rebuild = nullptr);
  // An index built in memory from a symbol file's text (tests, fuzzers).
  static AddressLookup fromText(llvm::StringRef text);

  AddressInfo lookup(uint64_t address) const;
  // The STACK CFI frame covering `address` (its INIT rules and changes).
  std::optional<CfiFrame> cfiAt(uint64_t address) const;
  // The STACK WIN record of `type` (4: FrameData, 0: FPO) covering
  // `address`; of several, the one starting last.
  std::optional<StackWinRecord> stackWinAt(uint64_t address, uint32_t type) const;
  // Where the function or PUBLIC named `name` starts (a PUBLIC of the name
  // before a FUNC; the first in the file of each).
  std::optional<uint64_t> addressOf(llvm::StringRef name) const;

  const ModuleHeading& heading() const { return heading_; }
  // The index failed a check and no intact one could be had: answers are
  // empty. damage() says what was wrong.
  bool damaged() const { return index_->damaged(); }
  std::string damage() const { return index_->damage(); }

private:
  AddressLookup(std::unique_ptr<IndexFile> index, Rebuild rebuild)
      : index_(std::move(index)), rebuild_(std::move(rebuild)) {}
  // f(index) answered from an intact index: again from a rebuilt one when
  // the first turned out damaged.
  template <class F> auto answer(F f) const;
  bool readHeading();

  mutable std::shared_ptr<IndexFile> index_;
  mutable Rebuild rebuild_;
  ModuleHeading heading_;
};

} // namespace dumpsyms
