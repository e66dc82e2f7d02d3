#include "server/http/listen_address.h"

#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

namespace dumpsyms {

llvm::Expected<ListenAddress> parseListenAddress(const std::string& text) {
  ListenAddress address;
  std::string port_text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return llvm::createStringError("expected [IPV6]:PORT, got '" + text + "'");
    address.host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon)
      return llvm::createStringError("expected HOST:PORT (IPv6 as [ADDRESS]:PORT), got '" + text +
                                     "'");
    address.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (address.host.empty())
    return llvm::createStringError("no host in '" + text + "'");
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port_text) > 65535)
    return llvm::createStringError("the port of '" + text + "' is not a number from 0 to 65535");
  address.port = static_cast<uint16_t>(std::stoul(port_text));
  return address;
}

llvm::Expected<ResolvedAddress> resolveListenAddress(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int error = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); error != 0)
    return llvm::createStringError("cannot resolve '" + host + "': " + gai_strerror(error));
  ResolvedAddress resolved;
  std::memcpy(&resolved.storage, found->ai_addr, found->ai_addrlen);
  resolved.length = found->ai_addrlen;
  resolved.ipv6 = found->ai_family == AF_INET6;
  freeaddrinfo(found);
  return resolved;
}

std::string urlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

} // namespace dumpsyms

namespace dumpsyms {

llvm::Expected<int> openListeningSocket(const ResolvedAddress& address, int backlog) {
  int fd = ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return llvm::createStringError(std::strerror(errno));
  int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0 ||
      ::listen(fd, backlog) != 0) {
    int error = errno;
    ::close(fd);
    return llvm::createStringError(std::strerror(error));
  }
  return fd;
}

} // namespace dumpsyms
