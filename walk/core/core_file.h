// Reads an ELF core file (a kernel core dump or gdb's `gcore`): the threads
// with their registers (NT_PRSTATUS), the files mapped into the process
// (NT_FILE) and the memory the dump holds (PT_LOAD). 64-bit little-endian
// cores of x86_64 and arm64.
//
// Everything is checked against the file's size: a truncated or damaged
// core is an error when its notes cannot be read, and memory the file does
// not hold is simply unknown.
#pragma once

#include "symbol_file/rules/postfix_evaluator.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct CoreThread {
  uint32_t tid = 0;
  int signal = 0;           // pr_cursig: the signal the thread was stopped by, 0 if none
  RegisterValues registers; // Breakpad's names ("$rip", "$rsp", ..., "pc", "sp", "x29")
  // From the NT_SIGINFO note that follows the thread's registers, when there is one.
  std::optional<int> signal_code;         // si_code
  std::optional<uint64_t> signal_address; // si_addr (faults)
};

struct CoreMappedFile {
  uint64_t start = 0, end = 0; // [start, end)
  uint64_t file_offset = 0;    // bytes
  std::string path;
};

struct CoreSegment {
  uint64_t address = 0;
  uint64_t size = 0;             // in memory
  uint64_t bytes_in_file = 0;    // what the dump holds, from `address` on
  const uint8_t* data = nullptr; // bytes_in_file bytes
  bool executable = false;
};

class CoreFile {
public:
  static llvm::Expected<std::unique_ptr<CoreFile>> open(const std::string& path);
  // The same from bytes already in memory (the fuzz target's entry).
  static llvm::Expected<std::unique_ptr<CoreFile>> parse(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                         const std::string& path);

  const std::string& path() const { return path_; }
  uint16_t machine() const { return machine_; }
  const std::vector<CoreThread>& threads() const { return threads_; }
  const std::vector<CoreMappedFile>& mappedFiles() const { return mapped_files_; }
  const std::vector<CoreSegment>& segments() const { return segments_; }
  // Problems that do not stop the walk (a truncated dump, a bad note).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // `size` bytes at `address` when the dump holds all of them.
  std::optional<std::vector<uint8_t>> read(uint64_t address, uint64_t size) const {
    return memory_.read(address, size);
  }
  // The bytes the segments hold, by address.
  const SnapshotMemory& memory() const { return memory_; }

private:
  CoreFile() = default;
  llvm::Error readNotes(llvm::StringRef bytes);

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  uint16_t machine_ = 0;
  std::vector<CoreThread> threads_;
  std::vector<CoreMappedFile> mapped_files_;
  std::vector<CoreSegment> segments_; // by address
  SnapshotMemory memory_;             // what segments_ hold
  std::vector<std::string> warnings_;
};

} // namespace dumpsyms
