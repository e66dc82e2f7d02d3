#include "dump/locate/debuginfod_fetcher.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// libdebuginfod brings libcurl and a TLS stack with it: it is loaded only
// when a server is configured, so that every other dump starts fast.
struct Library {
  decltype(&debuginfod_begin) begin = nullptr;
  decltype(&debuginfod_find_debuginfo) find = nullptr;
  decltype(&debuginfod_end) end = nullptr;

  static const Library* load() {
    static const Library library = [] {
      Library l;
      void* handle = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        return l;
      l.begin = reinterpret_cast<decltype(&debuginfod_begin)>(dlsym(handle, "debuginfod_begin"));
      l.find = reinterpret_cast<decltype(&debuginfod_find_debuginfo)>(
          dlsym(handle, "debuginfod_find_debuginfo"));
      l.end = reinterpret_cast<decltype(&debuginfod_end)>(dlsym(handle, "debuginfod_end"));
      return l;
    }();
    return library.begin && library.find && library.end ? &library : nullptr;
  }
};

} // namespace

bool debuginfodConfigured() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls && *urls;
}

llvm::Expected<std::string> fetchDebugInfo(const std::vector<uint8_t>& build_id) {
  const Library* library = Library::load();
  if (!library)
    return llvm::createStringError("libdebuginfod.so.1 cannot be loaded");
  debuginfod_client* client = library->begin();
  if (!client)
    return llvm::createStringError("cannot start a debuginfod client");
  char* path = nullptr;
  int fd = library->find(client, build_id.data(), static_cast<int>(build_id.size()), &path);
  library->end(client);
  if (fd < 0)
    return llvm::createStringError(std::strerror(-fd));
  close(fd);
  std::string result = path ? path : "";
  std::free(path);
  if (result.empty())
    return llvm::createStringError("the server gave no path");
  return result;
}

} // namespace dumpsyms
