#include "server/ingest/inflate_caps.h"

namespace dumpsyms {

uint64_t InflateCaps::ratioBound(uint64_t compressed) const {
  uint64_t bound = ratio != 0 && compressed > UINT64_MAX / ratio ? UINT64_MAX : compressed * ratio;
  return bound > UINT64_MAX - slack ? UINT64_MAX : bound + slack;
}

} // namespace dumpsyms
