// What a served store holds, as one value the pages print: every symbol file
// with its MODULE and INFO lines (read through the store backend, so a
// directory and an S3 bucket are catalogued alike), the files kept beside
// it, and the searches a person runs against it (a name prefix, a debug id,
// a code id, a build id). Built on demand and kept for a few seconds; a
// refresh reads again only the headers of files whose ETag changed.
#pragma once

#include "store/backend/store_backend.h"
#include "symbol_file/text/symbol_header.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <llvm/Support/Error.h>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

// A stored symbol file: its header (the MODULE and INFO lines, the debug
// file being the store's first level), where it is, and what is beside it.
struct CatalogEntry : SymbolFileHeader {
  std::string relative_path; // "<debug_file>/<ID>/<name>.sym" as stored
  uint64_t size = 0;
  int64_t mtime = 0; // seconds since the epoch: when it was uploaded
  std::string etag;
  // Store-relative paths of the other files in the same <debug_file>/<ID>/
  // directory (kept binaries, debug files), sorted.
  // (A PE kept at its code-id path <code_file>/<CODE_ID>/, beside the
  // code-id link to this file, is listed here too: it is this build's.)
  std::vector<std::string> kept;
  uint64_t kept_bytes = 0; // their sizes together
};

// How a search result matched.
enum class CatalogMatchKind { Name, DebugId, CodeId, BuildId };
const char* catalogMatchName(CatalogMatchKind kind); // "name", "debug id", "code id", "build id"

struct CatalogMatch {
  CatalogEntry entry;
  CatalogMatchKind how = CatalogMatchKind::Name;
};

struct CatalogQuery {
  std::string text; // what the person typed
  size_t page = 1;  // 1-based
  size_t per_page = 50;
};

struct CatalogResults {
  // This page's matches: ordered by debug_file (case-blind, then as is),
  // and within one debug_file newest first (mtime, then debug id).
  std::vector<CatalogMatch> matches;
  size_t total = 0; // matches on all pages
  size_t page = 1, pages = 1;
  // Why a query found nothing it could have (e.g. "an id needs 8 or more
  // hex digits"); "" otherwise.
  std::string note;
};

struct CatalogSummary {
  uint64_t modules = 0;             // distinct debug_file names
  uint64_t symbol_files = 0;        // .sym files
  uint64_t kept_files = 0;          // other files beside them
  uint64_t bytes = 0;               // of all of those
  std::vector<CatalogEntry> newest; // the latest uploads, newest first
};

// The store's modules A-Z, one letter a page (for stores of tens of
// thousands of modules, where a search needs a name to start from).
struct CatalogModule {
  std::string debug_file;
  size_t builds = 0;   // symbol files of this debug_file
  CatalogEntry newest; // its newest build
};

struct CatalogModuleList {
  // Each first letter the modules start with, 'A' to 'Z' (any case) and
  // '#' for any other first character, in that order, with how many.
  std::vector<std::pair<std::string, size_t>> letters;
  std::string letter;                 // the letter listed ("" when the store is empty)
  std::vector<CatalogModule> modules; // this page: by name without regard to case, then as is
  size_t total = 0;                   // modules of the letter
  size_t page = 1, pages = 1;
};

class CatalogSnapshot {
public:
  explicit CatalogSnapshot(std::vector<CatalogEntry> entries,
                           std::vector<std::string> problems = {});

  const std::vector<CatalogEntry>& entries() const { return entries_; } // by relative path
  // Files that could not be catalogued, one line each ("NAME/ID/x.sym: why").
  const std::vector<std::string>& problems() const { return problems_; }

  CatalogSummary summary(size_t newest_count = 10) const;
  // Matches, any case: a name prefix of debug_file or code_file; and when
  // the text (without '-', '{', '}' and spaces) is 8 or more hex digits, a
  // prefix of a debug id, a code id (non-ELF) or a build id (an ELF
  // module's code id). A file matched two ways is listed once, by the
  // first kind in that order.
  CatalogResults search(const CatalogQuery& query) const;
  // The symbol file of `debug_file` (any case) with `debug_id` (any case).
  const CatalogEntry* find(const std::string& debug_file, const DebugId& debug_id) const;
  // Every version of `debug_file` (any case), newest first.
  std::vector<const CatalogEntry*> versions(const std::string& debug_file) const;
  // The modules of `letter` ("A".."Z", "#"; any case; "" or one the store
  // has none of: the first it has), page `page` (1-based) of `per_page`.
  CatalogModuleList moduleList(const std::string& letter, size_t page, size_t per_page = 200) const;

private:
  std::vector<CatalogEntry> entries_;
  std::vector<std::string> problems_;
};

class StoreCatalog {
public:
  StoreCatalog(StoreBackend& store, std::chrono::seconds max_age = std::chrono::seconds(10));
  // The catalog, read again when the last one is older than max_age or
  // invalidate() was called since. Safe from several threads: one reads,
  // the others wait for it.
  llvm::Expected<std::shared_ptr<const CatalogSnapshot>> snapshot();
  // The next snapshot() reads the store again (after an upload).
  void invalidate();

private:
  StoreBackend& store_;
  std::chrono::seconds max_age_;
  std::mutex mutex_;
  std::shared_ptr<const CatalogSnapshot> current_;
  std::chrono::steady_clock::time_point read_at_;
  bool stale_ = true; // nothing read yet, or the last reading failed
  // invalidate() counts here without taking mutex_ (an upload must not wait
  // for a reading); a snapshot is current while the count is the one seen
  // when its reading began, so an upload during a reading is not missed.
  std::atomic<uint64_t> invalidations_{0};
  uint64_t read_invalidations_ = 0;
  // The entries read last time, by relative path: reused while the ETag holds.
  std::unordered_map<std::string, CatalogEntry> known_;
};

} // namespace dumpsyms
