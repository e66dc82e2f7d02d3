#include "common/files/user_cache_dir.h"

#include <cstdlib>
#include <unistd.h>

namespace dumpsyms {

std::string userCacheDir(const std::string& tool, const std::string& what) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/" + tool + "/" + what;
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/" + tool + "/" + what;
  return "/tmp/" + tool + "-" + std::to_string(getuid()) + "/" + what;
}

} // namespace dumpsyms
