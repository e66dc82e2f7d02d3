// sym-upload-v2, kept stateless across servers: the PUT body is published
// into the store under ".uploads/<key>" (a dot-directory listings and
// downloads pass over) and read back when the upload is completed, so each
// of the four requests may reach another server over the same store.
#include "common/limits/input_limits.h"
#include "server/ingest/upload_handlers.h"
#include "store/layout/layout.h"
#include "store/protocols/auth.h"
#include "store/protocols/sym_upload_v2.h"

#include <cerrno>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <sys/random.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

constexpr size_t kKeyBytes = 16;

std::string uploadsPath(const std::string& key) {
  return ".uploads/" + key;
}

// Keys this server hands out: 32 lower-case hex digits.
bool isUploadKey(llvm::StringRef key) {
  return key.size() == 2 * kKeyBytes &&
         key.find_first_not_of("0123456789abcdef") == llvm::StringRef::npos;
}

std::optional<std::string> newUploadKey() {
  unsigned char bytes[kKeyBytes];
  size_t have = 0;
  while (have < sizeof bytes) {
    ssize_t got = ::getrandom(bytes + have, sizeof bytes - have, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return std::nullopt;
    have += size_t(got);
  }
  return llvm::toHex(llvm::ArrayRef<uint8_t>(bytes, sizeof bytes), /*LowerCase=*/true);
}

// The token the request carried, handed back inside the upload URL: a
// client PUTs to that URL as it is (Breakpad's adds no key), and a signed
// URL is how the protocol's servers let it.
std::string presentedToken(const ServerRequest& request) {
  auto key = request.query.find(protocol_auth::kKeyArgument);
  if (key != request.query.end())
    return key->second;
  std::string header = request.header("auth-token");
  if (!header.empty())
    return header;
  // (kept: a StringRef of header()'s temporary would dangle)
  std::string authorization_header = request.header("authorization");
  llvm::StringRef authorization(authorization_header);
  if (authorization.consume_front(protocol_auth::kBearerPrefix))
    return authorization.trim().str();
  return "";
}

std::string percentEncode(llvm::StringRef text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += char(c);
    else
      out += "%" + llvm::utohexstr(c, false, 2);
  }
  return out;
}

ServerResponse json(int status, std::string body) {
  ServerResponse response;
  response.status = status;
  response.headers.push_back({"Content-Type", "application/json"});
  response.body = std::move(body);
  return response;
}

std::optional<std::string> readSmallBody(const ServerRequest& request, uint64_t limit) {
  if (request.body_path.empty())
    return std::string();
  if (request.body_size > limit)
    return std::nullopt;
  int fd = ::open(request.body_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::string text(size_t(limit) + 1, '\0');
  size_t have = 0;
  for (;;) {
    ssize_t got = ::read(fd, text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    have += size_t(got);
    if (have == text.size())
      break;
  }
  ::close(fd);
  if (have > limit)
    return std::nullopt;
  text.resize(have);
  return text;
}

} // namespace

ServerResponse handleV2CheckStatus(SymbolPublisher& publisher, ServerRequest& request) {
  auto symbol = sym_upload_v2::matchCheckStatusPath(request.path);
  if (!symbol)
    return publisher.refuse({404, "not a sym-upload-v2 path"});
  std::string path = symbolFileRelativePath(symbol->debug_file, symbol->debug_id);
  if (auto refusal = checkClientPath(path))
    return publisher.refuse(*refusal);
  StoreBackend& store = publisher.store();
  auto info = store.stat(path);
  if (!info)
    return publisher.refuse({500, "the store: " + llvm::toString(info.takeError())});
  bool found = info->has_value();
  if (!found) {
    // The id without regard to case, as downloads match it.
    auto ids = store.listNames(symbol->debug_file);
    if (!ids)
      return publisher.refuse({500, "the store: " + llvm::toString(ids.takeError())});
    for (const std::string& name : *ids)
      if (DebugId id(name); id.sameBuild(symbol->debug_id)) {
        auto other = store.stat(symbolFileRelativePath(symbol->debug_file, id));
        if (!other)
          return publisher.refuse({500, "the store: " + llvm::toString(other.takeError())});
        found = found || other->has_value();
      }
  }
  return json(200, sym_upload_v2::checkStatusAnswer(found));
}

ServerResponse handleV2Create(SymbolPublisher& publisher, ServerRequest& request) {
  std::string host = request.header("host");
  if (host.empty() || host.find_first_of("/ \t\\@") != std::string::npos)
    return publisher.refuse({400, "uploads:create needs the Host header to name the upload URL"});
  auto key = newUploadKey();
  if (!key)
    return publisher.refuse({500, "no random bytes for an upload key"});
  std::string scheme =
      llvm::StringRef(request.header("x-forwarded-proto")).equals_insensitive("https") ? "https"
                                                                                       : "http";
  std::string url = scheme + "://" + host + sym_upload_v2::uploadPath(*key);
  std::string token = presentedToken(request);
  if (!token.empty())
    url += std::string("?") + protocol_auth::kKeyArgument + "=" + percentEncode(token);
  return json(200, sym_upload_v2::createAnswer(url, *key));
}

ServerResponse handleV2Put(SymbolPublisher& publisher, ServerRequest& request) {
  auto key = sym_upload_v2::matchUploadPath(request.path);
  if (!key || !isUploadKey(*key))
    return publisher.refuse({404, "no such upload key (ask uploads:create for one)"});
  auto body = spoolBody(publisher, request);
  if (auto* refusal = std::get_if<UploadRefusal>(&body))
    return publisher.refuse(*refusal);
  SpoolFile& spool = std::get<SpoolFile>(body);
  std::string spooled = spool.path();
  spool.release();
  auto outcome = publisher.store().publish(uploadsPath(*key), spooled, /*replace=*/true);
  if (!outcome)
    return publisher.refuse({500, "the store: " + llvm::toString(outcome.takeError())});
  return ServerResponse::text(sym_upload_v2::kPutStored, "received");
}

ServerResponse handleV2Complete(SymbolPublisher& publisher, ServerRequest& request) {
  auto key = sym_upload_v2::matchCompletePath(request.path);
  if (!key || !isUploadKey(*key))
    return publisher.refuse({404, "no such upload key (ask uploads:create for one)"});
  auto text = readSmallBody(request, limits::kMaxUploadCompletionBody);
  if (!text)
    return publisher.refuse({413, limits::overLimit("the completion request",
                                                    limits::kMaxUploadCompletionBody, "bytes")});
  auto completion = sym_upload_v2::parseCompletion(*text);
  if (!completion)
    return publisher.refuse(
        {400, "the completion names no symbol_id with debug_file and debug_id"});
  if (!completion->type.empty() && completion->type != sym_upload_v2::kBreakpadType)
    return publisher.refuse(
        {415, "symbol_upload_type " + completion->type + " is not taken (BREAKPAD is)"});
  StoreBackend& store = publisher.store();
  std::string received = uploadsPath(*key);
  auto opened = store.open(received);
  if (!opened) {
    llvm::consumeError(opened.takeError());
    return publisher.refuse({404, "nothing was PUT for this upload key"});
  }
  auto spool = SpoolFile::create(store.spoolDirectory());
  if (!spool) {
    ::close(opened->fd);
    return publisher.refuse({500, "the store: " + llvm::toString(spool.takeError())});
  }
  // The received bytes, copied out of the store to be checked.
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t got = ::read(opened->fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    if (llvm::Error error = spool->write(llvm::StringRef(buffer.data(), size_t(got)))) {
      ::close(opened->fd);
      return publisher.refuse({500, "the store: " + llvm::toString(std::move(error))});
    }
  }
  ::close(opened->fd);
  if (llvm::Error error = spool->close())
    return publisher.refuse({500, "the store: " + llvm::toString(std::move(error))});
  CheckedSymbolFile file{std::move(*spool), {}};
  auto finish = [&](ServerResponse response) {
    // The received copy is done with, whatever the answer.
    llvm::consumeError(store.remove(received));
    return response;
  };
  if (auto refusal = publisher.check(file, "the upload " + *key))
    return finish(publisher.refuse(*refusal));
  if (auto refusal = checkClaimedModule(completion->symbol.debug_file, completion->symbol.debug_id,
                                        file.facts))
    return finish(publisher.refuse(*refusal));
  auto outcome = publisher.publish(file);
  if (auto* refusal = std::get_if<UploadRefusal>(&outcome))
    return finish(publisher.refuse(*refusal));
  bool duplicate = std::get<PublishOutcome>(outcome) == PublishOutcome::Same;
  return finish(json(200, sym_upload_v2::completeAnswer(duplicate)));
}

} // namespace dumpsyms
