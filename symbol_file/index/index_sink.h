// Builds a symbol file's index (index_format.h) from the parser's records as
// they stream past: tables grow in chunks, strings are kept once, and each
// function's lines and inline ranges are stored as 32-bit offsets from its
// address. finish() sorts what lookups binary-search and writes it all
// through an IndexOutput. No model of the whole file is ever held.
#pragma once

#include "symbol_file/index/index_format.h"
#include "symbol_file/index/index_output.h"
#include "symbol_file/index/sym_stamp.h"
#include "symbol_file/text/text_reader.h"

#include <llvm/ADT/CachedHashString.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/StringSaver.h>
#include <memory>
#include <vector>

namespace dumpsyms {

// Records appended in chunks: growing never copies what is there.
template <class T> class ChunkedTable {
public:
  void push(const T& record) {
    if (chunks_.empty() || chunks_.back().size() == kPerChunk) {
      chunks_.emplace_back();
      chunks_.back().reserve(kPerChunk);
    }
    chunks_.back().push_back(record);
    ++size_;
  }
  uint64_t size() const { return size_; }
  void writeTo(IndexOutput& out) const {
    for (const std::vector<T>& chunk : chunks_)
      out.append(
          llvm::StringRef(reinterpret_cast<const char*>(chunk.data()), chunk.size() * sizeof(T)));
  }

private:
  static constexpr size_t kPerChunk = (size_t(4) << 20) / sizeof(T);
  std::vector<std::vector<T>> chunks_;
  uint64_t size_ = 0;
};

// Strings, each once, numbered in the order first given.
class IndexStrings {
public:
  uint32_t id(llvm::StringRef text);
  uint64_t size() const { return strings_.size(); }
  const std::vector<llvm::StringRef>& all() const { return strings_; }

private:
  llvm::BumpPtrAllocator storage_;
  llvm::UniqueStringSaver saver_{storage_};
  llvm::DenseMap<llvm::CachedHashStringRef, uint32_t> ids_;
  std::vector<llvm::StringRef> strings_;
};

class IndexSink : public SymbolRecordSink {
public:
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

  // Whether the last MODULE record named the module (a symbol file's must).
  bool hasModuleName() const { return !module_name_.empty(); }

  // Sorts and writes the index. `corrupt`: kCorruptSymbols.
  llvm::Error finish(const SymStamp& stamp, bool corrupt, IndexOutput& out);

private:
  void endFunction();
  // Remembers the first table that outgrew its 32-bit numbering
  // (limits::kMaxIndexTableEntries); finish() reports it.
  void checkCount(uint64_t count, const char* what);

  IndexStrings strings_;
  std::string os_, cpu_, debug_id_, module_name_, code_id_, code_file_;
  std::vector<std::string> extra_info_;
  std::vector<uint32_t> files_, origins_; // id -> string id
  std::vector<symbol_index::FunctionRecord> functions_;
  std::vector<symbol_index::RangeRecord> function_ranges_;
  ChunkedTable<symbol_index::LineRecord> lines_;
  ChunkedTable<symbol_index::WideLineRecord> wide_lines_;
  ChunkedTable<symbol_index::InlineRecord> inlines_;
  ChunkedTable<symbol_index::InlineRangeRecord> inline_ranges_;
  ChunkedTable<symbol_index::WideRangeRecord> wide_inline_ranges_;
  // The open function's lines and inline ranges, until it is known whether
  // they fit 32-bit offsets.
  bool in_function_ = false;
  std::vector<SourceLine> pending_lines_;
  std::vector<AddressRange> pending_ranges_;
  std::vector<symbol_index::PublicRecord> publics_; // in file order
  std::vector<symbol_index::CfiFrameRecord> cfi_frames_;
  ChunkedTable<symbol_index::CfiChangeRecord> cfi_changes_;
  struct StackWinEntry {
    StackWinRecord record;
    uint32_t program;
  };
  std::vector<StackWinEntry> stack_win_;
  std::string too_large_; // what outgrew its numbering, if anything
};

} // namespace dumpsyms
