#include "locate/debuginfod_fetcher.h"

#include <cstdlib>
#include <cstring>
#include <elfutils/debuginfod.h>
#include <unistd.h>

namespace dumpsyms {

bool debuginfodConfigured() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls && *urls;
}

std::optional<std::string> fetchDebugInfo(const std::vector<uint8_t>& build_id,
                                          std::string& error) {
  debuginfod_client* client = debuginfod_begin();
  if (!client) {
    error = "cannot start a debuginfod client";
    return std::nullopt;
  }
  char* path = nullptr;
  int fd =
      debuginfod_find_debuginfo(client, build_id.data(), static_cast<int>(build_id.size()), &path);
  debuginfod_end(client);
  if (fd < 0) {
    error = std::strerror(-fd);
    return std::nullopt;
  }
  close(fd);
  std::string result = path ? path : "";
  std::free(path);
  if (result.empty()) {
    error = "the server gave no path";
    return std::nullopt;
  }
  return result;
}

} // namespace dumpsyms
