// Reads a Breakpad text symbol file back: one parser of the format for every
// reader of symbol files. It checks each record as Breakpad's processor
// would read it and hands the records, as plain values, to a sink: the
// model the writer prints from (readSymbolFile, so that `dump_syms | read |
// write` is the identity tests can hold), or the binary index lookups read
// (symbol_file/index/). Text arrives whole or a run of lines at a time, so a
// large file need not be held. Addresses stay module-relative.
#pragma once

#include "symbol_file/model/module.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymbolFileProblem {
  size_t line = 0; // 1-based
  std::string message;
  // The line was not read at all (Breakpad's parser counts such lines,
  // but for INLINE records, as errors and marks the file corrupt), rather
  // than read and found wrong.
  bool skipped = false;
};

// The records of a symbol file, in file order. String views are valid
// during the call only. A line or INLINE record belongs to the last
// function(); a cfiChange to the last cfiInit.
class SymbolRecordSink {
public:
  virtual ~SymbolRecordSink() = default;
  virtual void moduleRecord(llvm::StringRef os, llvm::StringRef cpu, llvm::StringRef debug_id,
                            llvm::StringRef name) = 0;
  virtual void codeId(llvm::StringRef code_id, llvm::StringRef code_file) = 0;
  virtual void info(llvm::StringRef text) = 0; // an INFO record other than CODE_ID
  virtual void file(uint32_t id, llvm::StringRef name) = 0;
  virtual void inlineOrigin(uint32_t id, llvm::StringRef name) = 0;
  virtual void function(uint64_t address, uint64_t size, uint64_t parameter_size, bool multiple,
                        llvm::StringRef name) = 0;
  virtual void line(const SourceLine& line) = 0;
  virtual void inlineCall(uint32_t depth, uint32_t call_line, std::optional<uint32_t> call_file,
                          uint32_t origin, llvm::ArrayRef<AddressRange> ranges) = 0;
  virtual void publicSymbol(uint64_t address, uint64_t parameter_size, bool multiple,
                            llvm::StringRef name) = 0;
  // `rules`: "name: expression ..." as written (parseCfiRules reads them).
  virtual void cfiInit(AddressRange range, llvm::StringRef rules) = 0;
  virtual void cfiChange(uint64_t address, llvm::StringRef rules) = 0;
  // `record.program` is left empty: the program is `program`.
  virtual void stackWin(const StackWinRecord& record, llvm::StringRef program) = 0;
};

// The checks and the grammar, a run of lines at a time.
class SymbolTextParser {
public:
  // `input_bytes`: the whole file's size (it bounds the ids a file may use).
  SymbolTextParser(SymbolRecordSink& sink, uint64_t input_bytes);

  // Whole lines separated by '\n' (the last one's may be missing only at
  // the end of the input).
  void lines(llvm::StringRef text);
  // The next line is longer than limits::kMaxSymbolFileLine: not read.
  void overlongLine();

  // Lines that do not follow the grammar (each is skipped), and records
  // the processor would drop or misread: overlapping FUNCs, line records
  // outside their FUNC or overlapping, ids without their FILE or
  // INLINE_ORIGIN, INLINE nesting that skips a level, a PUBLIC address
  // given twice, STACK CFI outside its INIT range. In line order.
  const std::vector<SymbolFileProblem>& problems() const { return problems_; }
  std::vector<SymbolFileProblem> takeProblems() { return std::move(problems_); }

private:
  std::string record(llvm::StringRef line);
  std::string numbered(llvm::StringRef line, std::vector<bool>& defined, bool origin);
  std::string wellFormed(std::string problem);
  std::string function(llvm::StringRef line);
  std::string inlineCall(llvm::StringRef line);
  std::string sourceLine(llvm::StringRef line);
  std::string publicSymbol(llvm::StringRef line);
  std::string cfiInit(llvm::StringRef line);
  std::string cfiChange(llvm::StringRef line);
  std::string stackWin(llvm::StringRef line);
  // The rules' names and expressions; false when the text does not start
  // with a name. Sets problem_ for an expression the evaluator refuses.
  bool checkRules(llvm::StringRef text);
  bool knownFile(uint64_t id) const { return id < files_.size() && files_[id]; }

  SymbolRecordSink& sink_;
  uint64_t input_bytes_ = 0;
  size_t number_ = 0; // lines so far
  std::vector<SymbolFileProblem> problems_;
  std::string problem_;               // a structural problem of the record just read
  bool well_formed_ = false;          // the record just read was skipped but follows the grammar
  std::vector<bool> files_, origins_; // ids given a FILE / INLINE_ORIGIN record
  // Ranges and addresses seen, for the overlap and duplicate checks: while
  // records come in address order (as writers write them) a sorted list
  // answers; the first record out of order moves them into a tree.
  class RangeSet {
  public:
    // Whether [start, end) overlaps a range already in the set; adds it when not.
    bool overlapsOrAdd(uint64_t start, uint64_t end);

  private:
    std::vector<std::pair<uint64_t, uint64_t>> ordered_;
    std::map<uint64_t, uint64_t> tree_; // start -> end, once out of order
    bool sorted_ = true;
  };
  class AddressSet {
  public:
    // Whether `address` is in the set already; adds it when not.
    bool containsOrAdd(uint64_t address);

  private:
    std::vector<uint64_t> ordered_;
    std::set<uint64_t> tree_;
    bool sorted_ = true;
  };
  RangeSet function_ranges_, cfi_ranges_;
  AddressSet public_addresses_;

  // What continuation records are checked against.
  struct CurrentFunction {
    AddressRange range;
    std::optional<AddressRange> last_line;
    std::optional<uint32_t> last_inline_depth;
  };
  std::optional<CurrentFunction> function_;
  struct CurrentFrame {
    AddressRange range;
    std::optional<uint64_t> last_change;
  };
  std::optional<CurrentFrame> frame_;
};

// The records into the model (readSymbolFile's sink).
class ModuleRecordSink : public SymbolRecordSink {
public:
  explicit ModuleRecordSink(Module& module) : m_(module) {}
  void moduleRecord(llvm::StringRef os, llvm::StringRef cpu, llvm::StringRef debug_id,
                    llvm::StringRef name) override;
  void codeId(llvm::StringRef code_id, llvm::StringRef code_file) override;
  void info(llvm::StringRef text) override;
  void file(uint32_t id, llvm::StringRef name) override;
  void inlineOrigin(uint32_t id, llvm::StringRef name) override;
  void function(uint64_t address, uint64_t size, uint64_t parameter_size, bool multiple,
                llvm::StringRef name) override;
  void line(const SourceLine& line) override;
  void inlineCall(uint32_t depth, uint32_t call_line, std::optional<uint32_t> call_file,
                  uint32_t origin, llvm::ArrayRef<AddressRange> ranges) override;
  void publicSymbol(uint64_t address, uint64_t parameter_size, bool multiple,
                    llvm::StringRef name) override;
  void cfiInit(AddressRange range, llvm::StringRef rules) override;
  void cfiChange(uint64_t address, llvm::StringRef rules) override;
  void stackWin(const StackWinRecord& record, llvm::StringRef program) override;

private:
  Module& m_;
};

struct ParsedSymbolFile {
  Module module;
  std::vector<SymbolFileProblem> problems; // as SymbolTextParser::problems()
};

// The whole text into the model.
ParsedSymbolFile readSymbolFile(llvm::StringRef text);

// A STACK CFI record's rules, "name: expression name: expression ...",
// appended to `rules`; false when the text does not start with a name.
bool parseCfiRules(llvm::StringRef text, std::vector<CfiRule>& rules);

// Whether the problems make Breakpad's processor call the symbols corrupt:
// a skipped line other than an INLINE record.
bool makesSymbolsCorrupt(const std::vector<SymbolFileProblem>& problems);

} // namespace dumpsyms
