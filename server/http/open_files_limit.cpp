#include "server/http/open_files_limit.h"

#include <sys/resource.h>

namespace dumpsyms {

uint64_t raiseOpenFilesLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
      limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? uint64_t(1) << 20 : limit.rlim_cur;
}

} // namespace dumpsyms
