// The records of a microdump as they appear in a log: the lines between
// "-----BEGIN BREAKPAD MICRODUMP-----" and "-----END BREAKPAD MICRODUMP-----",
// each with whatever the log put before it taken off -- a logcat prefix
// ("W/google-breakpad( 3728): ", with or without its date and time), or
// any other prefix the BEGIN line had -- and lines of other programs that
// the log interleaved left out.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct MicrodumpRecord {
  char kind = 0;        // 'V', 'O', 'P', 'R', 'G', 'H', 'S', 'C', 'M'
  llvm::StringRef text; // after "<kind> "
  size_t line = 0;      // in the log, from 1
};

struct MicrodumpText {
  std::vector<MicrodumpRecord> records;
  size_t begin_line = 0;      // 0: no microdump in the text
  bool ended = false;         // its END line was seen
  size_t more_microdumps = 0; // BEGIN lines after the first microdump's end
};

// The first microdump in `log`.
MicrodumpText findMicrodump(llvm::StringRef log);

// Whether `head` (a file's first bytes) holds a BEGIN line.
bool mentionsMicrodump(llvm::StringRef head);

} // namespace dumpsyms
