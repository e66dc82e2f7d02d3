#include "store/protocols/tecken.h"

#include "common/json/json_text.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace dumpsyms::tecken {

std::string uploadUrl(const std::string& base) {
  return llvm::StringRef(base).rtrim('/').str() + kUploadPath;
}

std::string uploadAnswer(const UploadAccount& account) {
  llvm::json::Array uploaded, skipped;
  for (const std::string& key : account.uploaded)
    uploaded.push_back(key);
  for (const std::string& key : account.skipped_keys)
    skipped.push_back(key);
  llvm::json::Value answer =
      llvm::json::Object{{"upload", llvm::json::Object{{"filename", account.filename},
                                                       {"size", static_cast<int64_t>(account.size)},
                                                       {"uploaded_keys", std::move(uploaded)},
                                                       {"skipped_keys", std::move(skipped)},
                                                       {"ignored_keys", llvm::json::Array{}}}}};
  return jsonText(answer) + "\n";
}

} // namespace dumpsyms::tecken
