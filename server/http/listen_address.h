// HOST:PORT as `symstore serve --listen` takes it: 127.0.0.1:8080,
// [::1]:0, localhost:8080. Resolved once, to the first address the
// resolver gives.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>
#include <sys/socket.h>

namespace dumpsyms {

struct ListenAddress {
  std::string host; // as the user wrote it, without brackets
  uint16_t port = 0;
};

// Splits "HOST:PORT" or "[IPV6]:PORT"; an error names what is wrong.
llvm::Expected<ListenAddress> parseListenAddress(const std::string& text);

struct ResolvedAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  bool ipv6 = false;
};

llvm::Expected<ResolvedAddress> resolveListenAddress(const std::string& host, uint16_t port);

// The host as it goes into a URL: IPv6 literals in brackets.
std::string urlHost(const std::string& host);

} // namespace dumpsyms

namespace dumpsyms {

// A TCP socket bound to `address` and listening (non-blocking, SO_REUSEADDR),
// or an error saying why not ("Address already in use").
llvm::Expected<int> openListeningSocket(const ResolvedAddress& address, int backlog);

} // namespace dumpsyms
