// What a client names and sends, as the upload checks read it: the first
// line is a request path (its route, the store path it names, a
// sym-upload-v2 path's parts) and a sym-upload-v2 completion body; the rest
// is a .sym file's text, checked whole and against that path and the
// completion's debug file and id.
#include "server/ingest/upload_checks.h"
#include "server/ingest/upload_service.h"
#include "store/protocols/sym_upload_v2.h"
#include "tests/fuzz/fuzz_targets.h"

namespace dumpsyms::fuzz {

int uploadChecks(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  auto [first, text] = input.split('\n');
  std::string path = first.str();
  for (const char* method : {"GET", "PUT", "POST"})
    if (auto route = matchUploadRoute(method, "/" + path))
      (void)uploadRouteName(*route);
  (void)sym_upload_v2::matchCheckStatusPath("/" + path);
  (void)sym_upload_v2::matchUploadPath("/" + path);
  (void)sym_upload_v2::matchCompletePath("/" + path);
  auto completion = sym_upload_v2::parseCompletion(path);
  bool safe = !checkClientPath(path);
  SymbolFileFacts facts;
  if (!checkSymbolText(text, "fuzz.sym", facts)) {
    if (safe)
      (void)checkClaimedPath(path, facts);
    if (completion)
      (void)checkClaimedModule(completion->symbol.debug_file, completion->symbol.debug_id, facts);
  }
  return 0;
}

} // namespace dumpsyms::fuzz
