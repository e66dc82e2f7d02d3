// A minidump's header and stream directory, checked: the signature, the
// directory inside the file, and each stream's bytes inside the file. A
// stream that runs past the end is cut to what the file holds and said so
// (a truncated dump is still worth walking); several streams of one type are
// kept in file order (lldb writes one Exception stream per thread).
#pragma once

#include "walk/minidump/minidump_bytes.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct MinidumpStream {
  uint32_t type = 0;
  uint32_t rva = 0;
  llvm::StringRef bytes;  // inside the file
  bool truncated = false; // the directory claims more than the file holds
};

struct MinidumpDirectory {
  uint32_t time_date_stamp = 0;
  std::vector<MinidumpStream> streams; // in directory order

  // The streams of `type`, in file order.
  std::vector<const MinidumpStream*> all(uint32_t type) const;
  // The first of `type`, or nullptr.
  const MinidumpStream* first(uint32_t type) const;
};

// Whether the bytes start as a minidump does ("MDMP").
bool looksLikeMinidump(llvm::StringRef bytes);

llvm::Expected<MinidumpDirectory> readStreamDirectory(const MinidumpBytes& bytes,
                                                      const std::string& path,
                                                      std::vector<std::string>& warnings);

} // namespace dumpsyms
