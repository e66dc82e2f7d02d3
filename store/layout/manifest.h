// The manifest of a release added to a store: one entry per candidate file,
// saying what became of it, plus totals. symstore add writes it; symtool
// reads it to tell modules of one name apart. Shards of one release write
// one manifest each; their entries together are the one-machine manifest's.
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "symbol_file/model/record_kinds.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

enum class EntryStatus {
  Written,     // the .sym was written
  Exists,      // the store already had it (and no --force)
  Duplicate,   // another candidate is the same module (duplicate_of)
  NoDebugInfo, // written, with only PUBLIC and STACK CFI records
  Failed,      // error says why
};

const char* statusName(EntryStatus status);
std::optional<EntryStatus> parseStatus(llvm::StringRef name);

struct ManifestEntry {
  std::string path; // the file as found
  std::string key;  // its path relative to the PATH argument it was found under
  EntryStatus status = EntryStatus::Failed;
  std::string module; // MODULE name (the store's <debug file>)
  std::string cpu;
  std::string arch; // of a universal Mach-O file: the slice this entry is
  DebugId debug_id;
  CodeId code_id;
  std::string debug_info_from; // "binary", "debug-file", "pe-only" or "none"
  std::string debug_file;      // the separate debug file read, if any
  std::string debug_file_how;  // how it was found
  std::string sym;             // the .sym path relative to the store
  // symstore add --keep-binaries: the store-relative paths of the files
  // kept beside the .sym (binary, debug file, PDB, PE, .build-id entry).
  std::vector<std::string> kept;
  std::optional<RecordCounts> records;
  std::vector<std::string> warnings;
  std::string duplicate_of; // path of the candidate dumped instead
  std::string error;
};

llvm::json::Value toJson(const ManifestEntry& entry);
llvm::Expected<ManifestEntry> entryFromJson(const llvm::json::Value& value);

struct ManifestTotals {
  uint64_t candidates = 0;
  uint64_t written = 0, exists = 0, duplicate = 0, no_debug_info = 0, failed = 0;
  uint64_t debug_files = 0;     // separate debug files found and not dumped
  uint64_t skipped_non_elf = 0; // files that are not ELF
  uint64_t other_shards = 0;    // candidates left to other shards
  uint64_t bytes_written = 0;   // of .sym files
  double wall_seconds = 0;
};

struct Manifest {
  std::string store;
  std::string shard; // "K/N"
  std::vector<ManifestEntry> entries;
  ManifestTotals totals;
};

// Counts the entries' statuses into `manifest.totals`, keeping the other fields.
void countStatuses(Manifest& manifest);

// Writes the manifest as JSON, atomically.
llvm::Error writeManifest(const std::string& path, const Manifest& manifest);

} // namespace dumpsyms
