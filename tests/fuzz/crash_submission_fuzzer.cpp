// The crash inbox's parsers: a submission's multipart body (plain, or
// gzip-coded as Crashpad sends it), a JSON report, the multipart reader fed
// in pieces of every size, and the signature's frame names. The first byte
// says which; the rest is the body. Nothing may crash, hang or hold more
// than the caps allow; every refusal is a 4xx with a reason.
#include "server/crashes/crash_submission.h"
#include "server/crashes/multipart_reader.h"
#include "tests/fuzz/fuzz_targets.h"
#include "walk/signature/crash_signature.h"

#include <cstdlib>
#include <fstream>
#include <variant>

namespace dumpsyms::fuzz {
namespace {

const std::string& spoolDirectory() {
  static const std::string directory = scratchDirectory("fuzz-crash-spool");
  return directory;
}

class Discard final : public MultipartHandler {
public:
  llvm::Error beginPart(const PartHeaders&) override { return llvm::Error::success(); }
  llvm::Error partData(llvm::StringRef) override { return llvm::Error::success(); }
  llvm::Error endPart() override { return llvm::Error::success(); }
};

void checkRefusal(const SubmissionResult& result) {
  if (const CrashRefusal* refusal = std::get_if<CrashRefusal>(&result))
    if (refusal->status >= 500 || (refusal->status != 413 && refusal->discarded.empty()))
      std::abort(); // bad input must never be a server error, nor a refusal without a reason
}

} // namespace

int crashSubmission(const uint8_t* data, size_t size) {
  if (size == 0 || spoolDirectory().empty())
    return 0;
  unsigned mode = data[0] % 4;
  llvm::StringRef body(reinterpret_cast<const char*>(data) + 1, size - 1);

  if (mode == 3) {
    // The reader in pieces, and the frame names of the body's lines.
    size_t piece = 1 + (body.empty() ? 0 : static_cast<unsigned char>(body[0]) % 97);
    Discard discard;
    MultipartReader reader("XyZ", discard);
    llvm::Error error = llvm::Error::success();
    for (size_t at = 0; at < body.size() && !error; at += piece)
      error = reader.feed(body.substr(at, piece));
    if (!error)
      error = reader.finish();
    llvm::consumeError(std::move(error));
    SignatureInput input;
    llvm::StringRef rest = body;
    while (!rest.empty() && input.frames.size() < 64) {
      auto [line, after] = rest.split('\n');
      input.frames.push_back({line.str(), "module", line.size(), 0});
      rest = after;
    }
    (void)crashSignature(input, SignatureRules::builtIn());
    return 0;
  }

  std::string path = spoolDirectory() + "/body";
  std::ofstream(path, std::ios::binary)
      .write(body.data(), static_cast<std::streamsize>(body.size()));
  ServerRequest request;
  request.method = "POST";
  request.body_path = path;
  request.body_size = body.size();
  request.query = {{"product", "P"}, {"version", "1"}, {"guid", "g"}};
  SubmissionLimits limits;
  limits.max_bytes = 1 << 20; // the fuzzer's inputs are smaller; inflation is capped here
  limits.drop_annotations = {"email"};
  if (mode == 2) {
    request.path = "/submit/report";
    request.headers["content-type"] = "application/json";
    checkRefusal(readCrashReport(request, limits, spoolDirectory()));
    return 0;
  }
  request.path = "/submit";
  request.headers["content-type"] = "multipart/form-data; boundary=XyZ";
  if (mode == 1)
    request.headers["content-encoding"] = "gzip";
  checkRefusal(readCrashSubmission(request, limits, spoolDirectory()));
  return 0;
}

} // namespace dumpsyms::fuzz
