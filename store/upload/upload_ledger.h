// What a server that cannot be asked (breakpad-v1, tecken) has confirmed:
// STORE/.uploaded/<server>, one "<relative path> <size>" line per file,
// rewritten atomically. A file whose size changed is sent again.
#pragma once

#include "store/layout/store_listing.h"

#include <llvm/Support/Error.h>
#include <map>
#include <mutex>
#include <string>

namespace dumpsyms {

class UploadLedger {
public:
  UploadLedger(const std::string& store, const std::string& server_name);

  // Reads what earlier runs recorded (none when there is no ledger yet).
  llvm::Error load();
  bool confirmed(const StoredSymbolFile& file) const;
  void record(const StoredSymbolFile& file); // thread-safe
  llvm::Error save() const;                  // thread-safe, atomic

  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::map<std::string, uint64_t> sizes_;
  mutable std::mutex mutex_;
};

} // namespace dumpsyms
