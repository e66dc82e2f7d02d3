// A Tecken upload's zip as the server reads it (server/ingest/upload_zip):
// entry names checked, links and encryption refused, inflation counted against
// the caps (small ones here, so that a bomb is reached in a few
// milliseconds), each entry's text then checked as a .sym filed under it.
//
// Input starting "PK" is the zip itself. Any other input is entries for a
// zip the target writes with libzip first, so that mutations reach the
// names and texts past the zip's checksums: NUL-separated name, text,
// name, text, ...; a name starting '@' is written as a symbolic link, one
// starting '=' is stored rather than deflated.
#include "server/ingest/upload_checks.h"
#include "server/ingest/upload_zip.h"
#include "tests/fuzz/fuzz_targets.h"

#include <sys/stat.h>
#include <vector>
#include <zip.h>

namespace dumpsyms::fuzz {

namespace {

class CheckingSink : public ZipEntrySink {
public:
  std::optional<UploadRefusal> begin(const std::string& name) override {
    name_ = name;
    text_.clear();
    return std::nullopt;
  }
  std::optional<UploadRefusal> write(llvm::StringRef bytes) override {
    text_.append(bytes.data(), bytes.size());
    return std::nullopt;
  }
  std::optional<UploadRefusal> end() override {
    SymbolFileFacts facts;
    if (auto refusal = checkSymbolText(text_, name_, facts))
      return refusal;
    return checkClaimedPath(name_, facts);
  }

private:
  std::string name_, text_;
};

// The zip libzip writes of the entries the input describes; empty if it
// will not write one.
std::string writeZip(llvm::StringRef input) {
  llvm::SmallVector<llvm::StringRef, 16> parts;
  input.split(parts, '\0');
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* target = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!target)
    return "";
  zip_source_keep(target);
  zip_t* archive = zip_open_from_source(target, ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_source_free(target);
    zip_source_free(target);
    return "";
  }
  for (size_t i = 0; i + 1 < parts.size() && i < 32; i += 2) {
    llvm::StringRef name = parts[i], text = parts[i + 1];
    bool symlink = name.consume_front("@");
    bool stored = name.consume_front("=");
    zip_source_t* source = zip_source_buffer(archive, text.data(), text.size(), 0);
    zip_int64_t index = source ? zip_file_add(archive, name.str().c_str(), source,
                                              ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE)
                               : -1;
    if (index < 0) {
      zip_source_free(source);
      continue;
    }
    if (symlink)
      zip_file_set_external_attributes(archive, zip_uint64_t(index), 0, ZIP_OPSYS_UNIX,
                                       zip_uint32_t(S_IFLNK | 0777) << 16);
    if (stored)
      zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0);
  }
  std::string bytes;
  if (zip_close(archive) != 0) {
    zip_discard(archive);
  } else if (zip_source_open(target) == 0) {
    char buffer[65536];
    zip_int64_t got;
    while ((got = zip_source_read(target, buffer, sizeof buffer)) > 0)
      bytes.append(buffer, size_t(got));
    zip_source_close(target);
  }
  zip_source_free(target);
  zip_error_fini(&error);
  return bytes;
}

} // namespace

int uploadZip(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  InflateCaps caps;
  caps.entries = 64;
  caps.entry_bytes = 1 << 20;
  caps.total_bytes = 4 << 20;
  caps.slack = 64 * 1024;
  std::string written;
  if (!input.starts_with("PK")) {
    written = writeZip(input);
    input = written;
  }
  CheckingSink sink;
  readUploadZipBytes(input, caps, sink);
  return 0;
}

} // namespace dumpsyms::fuzz
