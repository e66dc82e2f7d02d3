#include "store/protocols/sym_upload_v2_answers.h"

#include "common/limits/bounded_json.h"
#include "store/protocols/sym_upload_v2.h"

namespace dumpsyms {

std::string jsonStringField(const HttpResponse& answer, llvm::StringRef name) {
  if (answer.body_over_limit)
    return "";
  auto parsed = parseBoundedJson(answer.body);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return "";
  }
  const llvm::json::Object* object = parsed->getAsObject();
  auto value = object ? object->getString(name) : std::nullopt;
  return value ? value->str() : "";
}

ServerSymbolStatus checkStatusAnswer(const HttpResponse& answer) {
  using namespace sym_upload_v2;
  std::string status = answer.status == 200 ? jsonStringField(answer, kStatusField) : "";
  if (status == kFound)
    return ServerSymbolStatus::Found;
  if (status == kMissing)
    return ServerSymbolStatus::Missing;
  return ServerSymbolStatus::Unknown;
}

std::optional<UploadSlot> createUploadAnswer(const HttpResponse& answer) {
  if (answer.status != 200)
    return std::nullopt;
  UploadSlot slot{jsonStringField(answer, sym_upload_v2::kUploadUrlField),
                  jsonStringField(answer, sym_upload_v2::kUploadKeyField)};
  if (slot.url.empty() || slot.key.empty())
    return std::nullopt;
  return slot;
}

CompletionResult completeUploadAnswer(const HttpResponse& answer) {
  using namespace sym_upload_v2;
  std::string result = answer.status == 200 ? jsonStringField(answer, kResultField) : "";
  if (result == kOk)
    return CompletionResult::Ok;
  if (result == kDuplicateData)
    return CompletionResult::Duplicate;
  return CompletionResult::Failed;
}

} // namespace dumpsyms
