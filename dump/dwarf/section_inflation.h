// Prepares an image's DWARF for LLVM's parser.
//
// - LLVM inflates every compressed DWARF section, one after the other, when
//   it opens a file: also location lists, address tables and name indexes,
//   which a symbol dump never reads (on Debian's python3.11 debug file that
//   is a third of the work). Here the sections a dump reads are inflated in
//   parallel, straight into one copy of the image; the others are left empty.
// - LLVM 19's DIE parser can run past the end of .debug_info on corrupt
//   input (its LEB128 reader never stops once past the end), so in the copy
//   each unit section is followed by zero bytes, where any such run stops.
// - Inflating .debug_info is one zlib stream, a third of a big dump's wall
//   time on one thread: while it runs, the units already inflated can be
//   read (dump/dwarf/early_unit_walk), once every other section is done.
#pragma once

#include "dump/object/elf_image.h"

#include <atomic>
#include <condition_variable>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class ThreadPoolInterface;
}

namespace dumpsyms {

class DwarfInflation {
public:
  // Starts inflating on `threads` threads, largest section first; nullptr
  // when `image` has no DWARF unit section, or the copy cannot be made
  // (LLVM then reads the file itself and reports what is wrong; `warnings`
  // may say why).
  static std::unique_ptr<DwarfInflation> start(const ElfImage& image, unsigned threads,
                                               std::vector<std::string>& warnings);
  ~DwarfInflation();
  DwarfInflation(const DwarfInflation&) = delete;
  DwarfInflation& operator=(const DwarfInflation&) = delete;

  // Waits for the inflation to end; the copy LLVM should read, or nullptr
  // when a section cannot be inflated (`warnings` says which).
  std::unique_ptr<ElfImage> finish(std::vector<std::string>& warnings);

  // --- Reading .debug_info while it inflates ---

  // True when .debug_info is one zlib stream inflating in the background,
  // so that its first bytes are final long before its last.
  bool unitsStream() const { return info_ != kNone; }
  // Waits for every section but .debug_info; false when one failed.
  bool waitForOtherSections();
  // The sections of the copy by name without the leading dot
  // ("debug_abbrev"), as DWARFContext's section-map constructor takes
  // them: valid once waitForOtherSections() returned true. "debug_info"
  // is the whole destination; only its final bytes may be read.
  const llvm::StringMap<llvm::StringRef>& sections() const { return sections_; }
  // Waits until more than `known` bytes of .debug_info are final, or the
  // stream has ended; returns how many are (0 when it failed, and from
  // then on). `done` says whether the stream ended well.
  uint64_t waitForUnitBytes(uint64_t known, bool& done);
  // Held while the caller reads the final bytes: should the stream fail,
  // the bytes are inflated again another way, and not while read. Check
  // unitBytesFailed() once it is held.
  std::mutex& readingUnits() { return reading_; }
  bool unitBytesFailed();
  // Whether the stream has ended (well or not), without waiting.
  bool unitBytesEnded();

  // --- Pacing the stream to its readers ---
  // From startPacing() to stopPacing(), the stream waits while it has
  // inflated more than kPaceWindow bytes past the end of the units read
  // (unitsReadTo), unless a reader waits for bytes (waitForUnitBytes):
  // memory then holds about a window of unread units, not most of the
  // section, and the cores the stream leaves go to the readers.
  static constexpr uint64_t kPaceWindow = uint64_t(48) << 20;
  void startPacing();
  void stopPacing();
  // Every unit before this .debug_info offset has been read.
  void unitsReadTo(uint64_t offset);

private:
  DwarfInflation() = default;
  void inflate(size_t k);

  static constexpr size_t kNone = static_cast<size_t>(-1);

  const ElfImage* image_ = nullptr;
  struct Plan;
  std::vector<Plan> plan_;
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer_;
  std::vector<llvm::MutableArrayRef<char>> contents_;
  std::vector<std::string> errors_;
  llvm::StringMap<llvm::StringRef> sections_;
  std::unique_ptr<llvm::ThreadPoolInterface> pool_;

  size_t info_ = kNone; // the plan entry inflating in the background
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t others_left_ = 0;       // under mutex_
  bool others_failed_ = false;   // under mutex_
  uint64_t info_final_ = 0;      // under mutex_
  bool info_ended_ = false;      // under mutex_
  bool info_failed_ = false;     // under mutex_
  bool pacing_ = false;          // under mutex_
  uint64_t read_to_ = 0;         // under mutex_
  unsigned readers_waiting_ = 0; // under mutex_
  std::mutex reading_;
};

} // namespace dumpsyms
