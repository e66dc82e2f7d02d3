// A Tecken upload's zip, read with libzip from the spooled body. Every
// entry's name must be a safe store path (no "..", no absolute path, no
// backslash, ...), no entry may be a symbolic link or encrypted, and the
// entries are capped in count, in inflated bytes each and in all (counted
// while inflating, never taken from the zip's headers) and in their ratio
// to the zip's size. The first problem refuses the whole zip.
#pragma once

#include "server/ingest/inflate_caps.h"
#include "server/ingest/upload_refusal.h"

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

// Where the entries' bytes go, an entry at a time.
class ZipEntrySink {
public:
  virtual ~ZipEntrySink() = default;
  virtual std::optional<UploadRefusal> begin(const std::string& name) = 0;
  virtual std::optional<UploadRefusal> write(llvm::StringRef bytes) = 0;
  virtual std::optional<UploadRefusal> end() = 0;
};

std::optional<UploadRefusal> readUploadZipFile(const std::string& path, const InflateCaps& caps,
                                               ZipEntrySink& sink);
// The same over bytes in memory (the upload_zip fuzz target).
std::optional<UploadRefusal> readUploadZipBytes(llvm::StringRef bytes, const InflateCaps& caps,
                                                ZipEntrySink& sink);

} // namespace dumpsyms
