#include "server/service/tokens.h"

#include <algorithm>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SHA256.h>
#include <sstream>

namespace dumpsyms {
namespace {

std::array<uint8_t, 32> digestOf(const std::string& token) {
  std::array<uint8_t, 32> digest{};
  auto hash = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(token.data()), token.size()));
  std::copy(hash.begin(), hash.end(), digest.begin());
  return digest;
}

bool sameDigest(const std::array<uint8_t, 32>& a, const std::array<uint8_t, 32>& b) {
  // Every byte is looked at, whatever the first difference.
  volatile uint8_t difference = 0;
  for (size_t i = 0; i < a.size(); ++i)
    difference = difference | static_cast<uint8_t>(a[i] ^ b[i]);
  return difference == 0;
}

} // namespace

llvm::Expected<TokenSet> TokenSet::load(const std::string& path) {
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(path + ": " + buffer.getError().message());
  return parse((*buffer)->getBuffer().str(), path);
}

llvm::Expected<TokenSet> TokenSet::parse(const std::string& text, const std::string& name) {
  TokenSet set;
  std::istringstream lines(text);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::istringstream words(line);
    std::string token, word;
    unsigned permissions = 0;
    auto where = [&] { return name + ":" + std::to_string(number) + ": "; };
    if (!(words >> token) || token[0] == '#')
      continue;
    while (words >> word) {
      if (word[0] == '#')
        break;
      if (word == "upload")
        permissions |= kPermissionUpload;
      else if (word == "download")
        permissions |= kPermissionDownload;
      else if (word == "submit")
        permissions |= kPermissionSubmit;
      else if (word == "crashes")
        permissions |= kPermissionCrashes;
      else
        return llvm::createStringError(where() + "unknown permission '" + word +
                                       "' (expected upload, download, submit or crashes)");
    }
    if (permissions == 0)
      return llvm::createStringError(
          where() + "a token without permissions (add upload, download, submit or crashes)");
    Entry entry{digestOf(token), permissions};
    bool merged = false;
    for (Entry& known : set.entries_)
      if (known.digest == entry.digest) {
        known.permissions |= permissions;
        merged = true;
      }
    if (!merged)
      set.entries_.push_back(entry);
  }
  return set;
}

unsigned TokenSet::permissions(const std::string& token) const {
  auto digest = digestOf(token);
  unsigned permissions = 0;
  for (const Entry& entry : entries_) { // no early exit: every token is compared
    unsigned mask = sameDigest(entry.digest, digest) ? ~0u : 0u;
    permissions |= entry.permissions & mask;
  }
  return permissions;
}

bool TokenSet::anyHas(unsigned permission) const {
  for (const Entry& entry : entries_)
    if (entry.permissions & permission)
      return true;
  return false;
}

std::optional<std::string> requestToken(const ServerRequest& request) {
  if (auto it = request.headers.find("auth-token"); it != request.headers.end())
    return it->second;
  if (auto it = request.headers.find("authorization"); it != request.headers.end()) {
    const std::string& value = it->second;
    if (value.size() > 7 && llvm::StringRef(value).take_front(7).equals_insensitive("bearer "))
      return llvm::StringRef(value).drop_front(7).trim().str();
  }
  if (auto it = request.query.find("key"); it != request.query.end()) {
    // Breakpad's clients put the key into the URL as it is, and the query
    // decoding turns a '+' into a space; no token holds a space (the file
    // separates words by them), so every space was a '+'.
    std::string key = it->second;
    std::replace(key.begin(), key.end(), ' ', '+');
    return key;
  }
  return std::nullopt;
}

} // namespace dumpsyms
