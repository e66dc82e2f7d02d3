#include "walk/core/core_file.h"

#include "common/errors/file_error.h"
#include "walk/core/core_registers.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

namespace {

using llvm::object::ELF64LE;

constexpr uint32_t kNtFile = 0x46494c45;    // "FILE"
constexpr uint32_t kNtSigInfo = 0x53494749; // "SIGI"

// NT_FILE: a count, the page size, count (start, end, page offset)
// triples, then count NUL-terminated paths.
std::vector<CoreMappedFile> decodeMappedFiles(llvm::StringRef note) {
  std::vector<CoreMappedFile> files;
  if (note.size() < 16)
    return files;
  uint64_t count = llvm::support::endian::read64le(note.data());
  uint64_t page_size = llvm::support::endian::read64le(note.data() + 8);
  if (count > (note.size() - 16) / 24)
    return files;
  size_t names = 16 + count * 24;
  llvm::StringRef paths = note.drop_front(names);
  for (uint64_t i = 0; i < count; ++i) {
    const char* entry = note.data() + 16 + i * 24;
    CoreMappedFile file;
    file.start = llvm::support::endian::read64le(entry);
    file.end = llvm::support::endian::read64le(entry + 8);
    uint64_t pages = llvm::support::endian::read64le(entry + 16);
    if (page_size != 0 && pages > UINT64_MAX / page_size)
      return {};
    file.file_offset = pages * page_size;
    size_t length = paths.find('\0');
    if (length == llvm::StringRef::npos)
      return {};
    file.path = paths.take_front(length).str();
    paths = paths.drop_front(length + 1);
    if (file.end > file.start)
      files.push_back(std::move(file));
  }
  return files;
}

} // namespace

llvm::Expected<std::unique_ptr<CoreFile>> CoreFile::open(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  return parse(std::move(*buffer), path);
}

llvm::Expected<std::unique_ptr<CoreFile>>
CoreFile::parse(std::unique_ptr<llvm::MemoryBuffer> buffer, const std::string& path) {
  std::unique_ptr<CoreFile> core(new CoreFile());
  core->path_ = path;
  llvm::StringRef bytes = buffer->getBuffer();
  core->buffer_ = std::move(buffer);
  if (bytes.size() < 4 || !bytes.starts_with("\x7f"
                                             "ELF"))
    return fileError(path, "is not an ELF core file (no ELF magic)");
  if (bytes.size() < sizeof(ELF64LE::Ehdr) || bytes[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      bytes[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return fileError(path, "is not a 64-bit little-endian ELF file; cores of x86_64 and arm64 "
                           "are read");
  auto elf = llvm::object::ELFFile<ELF64LE>::create(bytes);
  if (!elf)
    return fileError(path, "corrupt ELF header: " + llvm::toString(elf.takeError()));
  if (elf->getHeader().e_type != llvm::ELF::ET_CORE)
    return fileError(path, "is an ELF file but not a core file");
  core->machine_ = elf->getHeader().e_machine;
  if (core->machine_ != llvm::ELF::EM_X86_64 && core->machine_ != llvm::ELF::EM_AARCH64)
    return fileError(path, "is a core of a CPU whose stacks are not walked (e_machine " +
                               std::to_string(core->machine_) + "); x86_64 and arm64 are");
  if (llvm::Error error = core->readNotes(bytes))
    return error;
  if (core->threads_.empty())
    return fileError(path, "holds no thread registers (no NT_PRSTATUS note)");
  return core;
}

llvm::Error CoreFile::readNotes(llvm::StringRef bytes) {
  auto elf = llvm::object::ELFFile<ELF64LE>::create(bytes);
  if (!elf)
    return elf.takeError();
  auto headers = elf->program_headers();
  if (!headers)
    return fileError(path_, "corrupt program headers: " + llvm::toString(headers.takeError()));
  bool truncated = false;
  for (const ELF64LE::Phdr& header : *headers) {
    if (header.p_type == llvm::ELF::PT_LOAD) {
      CoreSegment segment;
      segment.address = header.p_vaddr;
      segment.size = header.p_memsz;
      segment.executable = header.p_flags & llvm::ELF::PF_X;
      if (header.p_offset < bytes.size()) {
        uint64_t held = std::min<uint64_t>(header.p_filesz, bytes.size() - header.p_offset);
        truncated |= held < header.p_filesz;
        segment.bytes_in_file = std::min(held, segment.size);
        segment.data = reinterpret_cast<const uint8_t*>(bytes.data()) + header.p_offset;
      } else if (header.p_filesz > 0) {
        truncated = true;
      }
      if (segment.size > 0 && segment.address + segment.size > segment.address)
        segments_.push_back(segment);
      continue;
    }
    if (header.p_type != llvm::ELF::PT_NOTE)
      continue;
    if (header.p_offset > bytes.size() || header.p_filesz > bytes.size() - header.p_offset)
      return fileError(path_, "is truncated: its notes (thread registers, mapped files) end at "
                              "byte " +
                                  std::to_string(header.p_offset + header.p_filesz) + " of a " +
                                  std::to_string(bytes.size()) + "-byte file");
    llvm::Error error = llvm::Error::success();
    for (const ELF64LE::Note& note : elf->notes(header, error)) {
      llvm::StringRef desc = note.getDescAsStringRef(4);
      if (note.getName() != "CORE")
        continue;
      if (note.getType() == llvm::ELF::NT_PRSTATUS) {
        if (std::optional<PrStatus> status = decodePrStatus(machine_, desc))
          threads_.push_back({status->tid, status->signal, std::move(status->registers), {}, {}});
        else
          warnings_.push_back("a thread's NT_PRSTATUS note is too short; thread left out");
      } else if (note.getType() == kNtFile) {
        mapped_files_ = decodeMappedFiles(desc);
        if (mapped_files_.empty())
          warnings_.push_back("the NT_FILE note (mapped files) is damaged or empty");
      } else if (note.getType() == kNtSigInfo && !threads_.empty() && desc.size() >= 4) {
        // siginfo_t: si_signo, si_errno, si_code, then (64-bit) the
        // union from byte 16, whose first member for faults is si_addr.
        CoreThread& thread = threads_.back();
        if (thread.signal == 0)
          thread.signal = static_cast<int>(llvm::support::endian::read32le(desc.data()));
        if (desc.size() >= 12)
          thread.signal_code = static_cast<int>(llvm::support::endian::read32le(desc.data() + 8));
        if (desc.size() >= 24)
          thread.signal_address = llvm::support::endian::read64le(desc.data() + 16);
      }
    }
    if (error)
      return fileError(path_, "corrupt note segment: " + llvm::toString(std::move(error)));
  }
  if (truncated)
    warnings_.push_back("the core is truncated: some of its memory is not in the file");
  std::sort(segments_.begin(), segments_.end(),
            [](const CoreSegment& a, const CoreSegment& b) { return a.address < b.address; });
  for (const CoreSegment& segment : segments_)
    memory_.add({segment.address, segment.size, segment.bytes_in_file, segment.data});
  memory_.finish(warnings_);
  return llvm::Error::success();
}

} // namespace dumpsyms
