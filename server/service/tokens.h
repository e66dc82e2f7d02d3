// The tokens `symstore serve --tokens FILE` accepts: one a line, then its
// permissions separated by spaces ("TOKEN upload download"); a word that
// starts with '#' starts a comment. Only digests of the tokens are kept,
// compared in constant time against every token, so neither the time an
// answer takes nor a memory dump tells a token.
#pragma once

#include "server/http/http_server.h"

#include <array>
#include <cstdint>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

enum TokenPermission : unsigned {
  kPermissionUpload = 1,
  kPermissionDownload = 2,
  kPermissionSubmit = 4,  // post crash reports (needed only once a token has it)
  kPermissionCrashes = 8, // read the crash inbox
};

class TokenSet {
public:
  // An error names FILE:LINE and what is wrong there.
  static llvm::Expected<TokenSet> load(const std::string& path);
  static llvm::Expected<TokenSet> parse(const std::string& text, const std::string& name);

  size_t size() const { return entries_.size(); }
  // The permissions (kPermission* bits) of `token`; 0 for an unknown one.
  unsigned permissions(const std::string& token) const;
  // Whether any token has `permission`.
  bool anyHas(unsigned permission) const;

private:
  struct Entry {
    std::array<uint8_t, 32> digest;
    unsigned permissions = 0;
  };
  std::vector<Entry> entries_;
};

// The token a request carries: an `Auth-Token` header (Tecken),
// `Authorization: Bearer TOKEN`, or the `key` query argument (Breakpad's
// sym-upload clients, which send it unescaped: a '+' decoded to a space
// is taken back), in that order; none if it carries none.
std::optional<std::string> requestToken(const ServerRequest& request);

} // namespace dumpsyms
