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
  std::string release; // "PRODUCT/VERSION" whose ids a backtrace was read with; "" otherwise
  std::string note;    // e.g. why a backtrace used the newest builds
  std::string error;   // why it failed
  llvm::json::Value walk = nullptr; // the stackwalk document, or the symbolized lines
};

llvm::json::Value toJson(const ProcessedCrash& processed);
llvm::Expected<ProcessedCrash> processedCrashFromJson(const llvm::json::Value& value);

class CrashStore {
public:
  explicit CrashStore(StoreBackend& backend) : backend_(backend) {}

  std::string describe() const { return backend_.describe(); }
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

  // The days (yyyymmdd) the store has crashes of, and the ids of one day.
  llvm::Expected<std::vector<std::string>> days();
  llvm::Expected<std::vector<std::string>> idsOf(const std::string& day);
  // The crash's files removed (retention), received.json first so that a
  // crash half removed is no longer listed.
  llvm::Error remove(const std::string& id);
  // The sizes of the crash's files together.
  llvm::Expected<uint64_t> bytesOf(const std::string& id);

private:
  llvm::Error publishText(const std::string& relative, const std::string& text, bool replace);
  llvm::Expected<std::optional<llvm::json::Value>> readJson(const std::string& relative,
                                                            uint64_t cap);

  StoreBackend& backend_;
};

} // namespace dumpsyms
