// The crash inbox's index: an embedded SQLite database in the server's
// cache directory, made from the crash store and made again from it when
// it is missing, of another schema or of another store. It answers the
// listings, searches and groups; the crash store stays the truth (several
// servers over one bucket each keep an index of their own).
#pragma once

#include "server/crashes/crash_store.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace dumpsyms {

struct IndexedCrash {
  std::string id, received, product, version, kind, signature, status;
  int64_t received_ms = 0;
  std::string processed_tag; // processed.json's validator when it was indexed
};

struct CrashQuery {
  std::string signature;        // exactly
  std::string signature_text;   // contained in the signature
  std::string product, version; // exactly
  std::string debug_id;         // a module of the crash (upper-case id)
  std::string id_prefix;        // the crash id starts so
  std::optional<int64_t> since_ms;
  std::optional<int64_t> until_ms;
  size_t limit = 100;
  std::string cursor; // from the previous page's next_cursor
};

struct CrashPage {
  std::vector<IndexedCrash> crashes; // newest first
  std::string next_cursor;           // "" on the last page
};

struct SignatureGroup {
  std::string signature;
  uint64_t count = 0;
  std::string first, last; // RFC 3339
  std::vector<std::string> products, versions;
};

class CrashIndex {
public:
  // Opens (or makes) the database at `path` for the crash store named
  // `store`; one of another schema or store is emptied (the inbox lists
  // the whole store at every start).
  static llvm::Expected<std::unique_ptr<CrashIndex>> open(const std::string& path,
                                                          const std::string& store);
  ~CrashIndex();

  // A crash received (status "queued" unless it is processed already).
  llvm::Error addReceived(const CrashRecord& record);
  llvm::Error setProcessed(const std::string& id, const ProcessedCrash& processed,
                           const std::string& processed_tag);
  llvm::Error setStatus(const std::string& id, const std::string& status);
  llvm::Error forget(const std::string& id);

  std::optional<IndexedCrash> find(const std::string& id);
  CrashPage list(const CrashQuery& query);
  // Groups by count, most first, of crashes received in [since, until).
  std::vector<SignatureGroup> signatures(std::optional<int64_t> since_ms,
                                         std::optional<int64_t> until_ms, const CrashQuery& filter,
                                         size_t limit);
  // Crashes a day of one signature: (yyyy-mm-dd, count), oldest first.
  std::vector<std::pair<std::string, uint64_t>> dailyCounts(const std::string& signature,
                                                            int64_t since_ms);
  std::vector<std::string> queued();
  // The missing modules (debug_file, debug_id) of processed crashes.
  std::vector<std::pair<std::string, std::string>> missingModules();
  std::vector<std::string> crashesMissing(const std::string& debug_file,
                                          const std::string& debug_id);
  // Crashes whose files are still kept, received before `before_ms`, with
  // their files' bytes, oldest first (retention).
  std::vector<std::pair<std::string, int64_t>> oldestKept(size_t limit, int64_t before_ms);
  // The bytes of the files still kept.
  uint64_t keptBytes();

private:
  explicit CrashIndex(sqlite3* db) : db_(db) {}
  llvm::Error exec(const std::string& sql);

  sqlite3* db_;
  std::mutex mutex_;
};

// Milliseconds since the epoch of an RFC 3339 time; 0 for another text.
int64_t epochMillis(const std::string& rfc3339_time);

} // namespace dumpsyms
