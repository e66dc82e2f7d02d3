// A Tecken upload's zip as the server reads it (ingest/upload_zip): entry
// names checked, links and encryption refused, inflation counted against
// the caps (small ones here, so that a bomb is reached in a few
// milliseconds), each entry's text then checked as a .sym filed under it.
#include "ingest/upload_checks.h"
#include "ingest/upload_zip.h"
#include "tests/fuzz/fuzz_targets.h"

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

} // namespace

int uploadZip(const uint8_t* data, size_t size) {
  InflateCaps caps;
  caps.entries = 64;
  caps.entry_bytes = 1 << 20;
  caps.total_bytes = 4 << 20;
  caps.slack = 64 * 1024;
  CheckingSink sink;
  readUploadZipBytes(llvm::StringRef(reinterpret_cast<const char*>(data), size), caps, sink);
  return 0;
}

} // namespace dumpsyms::fuzz
