// How far an upload may inflate (a Tecken zip's entries, a gzip PUT body):
// by default common/limits/input_limits.h's; tests lower them.
#pragma once

#include "common/limits/input_limits.h"

#include <cstdint>

namespace dumpsyms {

struct InflateCaps {
  uint64_t entries = limits::kMaxUploadZipEntries;
  uint64_t entry_bytes = limits::kMaxUploadEntryBytes;
  uint64_t total_bytes = limits::kMaxUploadInflatedBytes;
  uint64_t ratio = limits::kMaxUploadInflateRatio;
  uint64_t slack = limits::kUploadInflateSlack;

  // The most `compressed` bytes may inflate to by the ratio.
  uint64_t ratioBound(uint64_t compressed) const;
};

} // namespace dumpsyms
