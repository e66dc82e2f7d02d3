// The crash store: each crash's received files and its processed result
// under <yyyymmdd>/<id>/ of a directory or an S3 prefix (a StoreBackend,
// so every write is atomic and durable before it is answered). The store
// is the truth; the index (crash_index.h) is made from it.
//   received.json   what was received: product, version, annotations, files
//   minidump.dmp | backtrace.txt | report.json   the crash itself
//   attachment-N    the client's other file parts
//   processed.json  the walk, the signature and its history, the missing
//                   symbols (written again when the crash is walked again)
// received.json is published last: a crash without it is one whose
// submission was never answered, and is not listed.
#pragma once

#include "server/crashes/crash_submission.h"
#include "store/backend/store_backend.h"

#include <chrono>
#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

constexpr const char* kReceivedFile = "received.json";
constexpr const char* kProcessedFile = "processed.json";

struct CrashFileEntry {
  std::string file;     // its name in the crash's directory
  std::string field;    // the form field it came in
  std::string filename; // as the client named it
  uint64_t size = 0;
};

struct CrashRecord {
  std::string id;
  std::string received; // RFC 3339
  CrashKind kind = CrashKind::Minidump;
  std::string product, version, guid;
  std::map<std::string, std::string> annotations;
  CrashFileEntry payload;
  std::vector<CrashFileEntry> attachments;
};

llvm::json::Value toJson(const CrashRecord& record);
llvm::Expected<CrashRecord> crashRecordFromJson(const llvm::json::Value& value);

struct MissingSymbol {
  std::string debug_file, debug_id, code_file, code_id;
};

struct SignatureChange {
  std::string signature;
  std::string at; // RFC 3339
};

// What processing made of a crash.
struct ProcessedCrash {
  std::string status; // "processed" or "failed"
  std::string processed_at;
  std::string signature;
  std::vector<SignatureChange> signature_history; // earlier signatures, oldest first
  std::vector<MissingSymbol> missing_symbols;
  // Every module the crash names, as "debug_file/DEBUG_ID" (searching by id).
  std::vector<std::pair<std::string, std::string>> modules;
  std::string release;    // "PRODUCT/VERSION" whose ids a backtrace was read with; "" otherwise
  std::string note;       // e.g. why a backtrace used the newest builds
  std::string error;      // why it failed
  std::string expired_at; // when retention removed its files (RFC 3339); "" while kept
  llvm::json::Value walk = nullptr; // the stackwalk document, or the symbolized lines
};

llvm::json::Value toJson(const ProcessedCrash& processed);
llvm::Expected<ProcessedCrash> processedCrashFromJson(const llvm::json::Value& value);

class CrashStore {
public:
  explicit CrashStore(StoreBackend& backend) : backend_(backend) {}

  std::string spoolDirectory() const { return backend_.spoolDirectory(); }

  // Publishes the crash's files, received.json last; when this returns
  // success the crash is on the disk (or in the bucket). The spool files
  // are consumed.
  llvm::Expected<CrashRecord> publish(const std::string& id, ReceivedCrash& crash,
                                      std::chrono::system_clock::time_point received);

  // None when there is no such crash.
  llvm::Expected<std::optional<CrashRecord>> record(const std::string& id);
  // None when the crash was never processed; `etag` gets its validator.
  llvm::Expected<std::optional<ProcessedCrash>> processed(const std::string& id,
                                                          std::string* etag = nullptr);
  // The validator of processed.json, "" when there is none.
  llvm::Expected<std::string> processedTag(const std::string& id);
  llvm::Error writeProcessed(const std::string& id, const ProcessedCrash& processed);
  // One of the crash's files (its payload or an attachment), for download.
  llvm::Expected<std::optional<OpenedObject>> openFile(const std::string& id,
                                                       const std::string& file);

  // What a listing of the store says of one crash.
  struct ListedCrash {
    std::string id;
    bool received = false;     // received.json is there: the crash was answered
    std::string processed_tag; // processed.json's validator, "" when there is none
  };
  // The crashes of one day (yyyymmdd), or of every day for "", in one
  // listing of the store.
  llvm::Expected<std::vector<ListedCrash>> list(const std::string& day);
  // Retention: the crash's dump and attachments removed and its walk
  // dropped, what it was kept (received.json, and processed.json with its
  // signature and `expired_at`), so its group's counts stay.
  llvm::Error expire(const std::string& id, const std::string& at);

private:
  llvm::Error publishText(const std::string& relative, const std::string& text, bool replace);
  llvm::Expected<std::optional<llvm::json::Value>> readJson(const std::string& relative,
                                                            uint64_t cap);

  StoreBackend& backend_;
};

} // namespace dumpsyms
