#include "dump/object/elf_image.h"

#include "common/limits/input_limits.h"
#include "dump/object/compressed_section.h"
#include "dump/object/legacy_zdebug.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/Decompressor.h>
#include <llvm/Object/ELF.h>
#include <sys/mman.h>
#include <unistd.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

bool plausibleInflatedSize(uint64_t inflated, uint64_t compressed) {
  return inflated <= compressed * limits::kMaxInflateRatio + limits::kInflateSlack;
}

std::string implausibleInflation(const std::string& section, uint64_t inflated,
                                 uint64_t compressed) {
  return "section '" + section + "' claims to inflate " + std::to_string(compressed) +
         " bytes to " + std::to_string(inflated) + ": " +
         limits::overLimit("that", limits::kMaxInflateRatio, "times its compressed size");
}

bool ElfSection::hasBytes() const {
  return type != ELF::SHT_NOBITS && type != ELF::SHT_NULL;
}

namespace {

template <class ELFT>
Error readHeaders(const ELFFile<ELFT>& file, const std::string& path,
                  std::vector<ElfSection>& sections, std::vector<ElfSegment>& segments) {
  auto section_headers = file.sections();
  if (!section_headers)
    return fileError(path, "corrupt ELF section headers: " + toString(section_headers.takeError()));
  uint64_t file_size = file.getBufSize();
  for (const auto& header : *section_headers) {
    ElfSection section;
    auto name = file.getSectionName(header);
    if (name)
      section.name = name->str();
    else
      consumeError(name.takeError());
    section.type = header.sh_type;
    section.flags = header.sh_flags;
    section.address = header.sh_addr;
    section.offset = header.sh_offset;
    section.size = header.sh_size;
    section.entry_size = header.sh_entsize;
    section.link = header.sh_link;
    if (section.hasBytes() &&
        (section.offset > file_size || section.size > file_size - section.offset))
      return fileError(path, "section '" + section.name + "' extends past the end of the file (" +
                                 Twine(file_size) + " bytes): the file is truncated or corrupt");
    sections.push_back(std::move(section));
  }
  auto program_headers = file.program_headers();
  if (!program_headers)
    return fileError(path, "corrupt ELF program headers: " + toString(program_headers.takeError()));
  for (const auto& header : *program_headers)
    segments.push_back({header.p_type, header.p_offset, header.p_vaddr, header.p_filesz,
                        header.p_memsz, header.p_align});
  return Error::success();
}

template <class ELFT>
Error readHeaders(const ELFObjectFileBase& object, const std::string& path,
                  std::vector<ElfSection>& sections, std::vector<ElfSegment>& segments) {
  return readHeaders(cast<ELFObjectFile<ELFT>>(object).getELFFile(), path, sections, segments);
}

} // namespace

Expected<std::unique_ptr<ElfImage>> ElfImage::open(const std::string& path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return fromBuffer(std::move(*buffer), path);
}

void ElfImage::dropPages(uint64_t offset, uint64_t size) const {
  if (buffer_->getBufferKind() != MemoryBuffer::MemoryBuffer_MMap || offset >= bytes().size())
    return;
  size = std::min<uint64_t>(size, bytes().size() - offset);
  // Only whole pages inside the range: their neighbours may still be read.
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = reinterpret_cast<uintptr_t>(bytes().data()) + offset;
  uintptr_t end = start + size;
  start = (start + page - 1) & ~(page - 1);
  end &= ~(page - 1);
  if (end > start)
    madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
}

Expected<std::unique_ptr<ElfImage>> ElfImage::fromBuffer(std::unique_ptr<MemoryBuffer> buffer,
                                                         std::string name) {
  std::unique_ptr<ElfImage> image(new ElfImage);
  image->path_ = std::move(name);
  image->buffer_ = std::move(buffer);
  if (Error error = image->parse())
    return error;
  return image;
}

Error ElfImage::parse() {
  StringRef data = buffer_->getBuffer();
  if (data.size() < 4 || !data.starts_with("\x7f"
                                           "ELF"))
    return fileError(path_, "not an ELF file");
  if (data.size() < 16)
    return fileError(path_, "truncated ELF header");

  // Rewrite legacy .zdebug_* sections before LLVM sees the file.
  auto inflated =
      inflateLegacyDebugSections(buffer_->getMemBufferRef(), [&](const std::string& message) {
        open_warnings_.push_back(path_ + ": " + message);
      });
  if (!inflated)
    return fileError(path_, toString(inflated.takeError()));
  if (*inflated)
    buffer_ = std::move(*inflated);

  auto binary = ObjectFile::createELFObjectFile(buffer_->getMemBufferRef());
  if (!binary)
    return fileError(path_, "corrupt ELF file: " + toString(binary.takeError()));
  object_.reset(cast<ELFObjectFileBase>(binary->release()));

  machine_ = object_->getEMachine();
  file_type_ = object_->getEType();
  is_64_bit_ = object_->is64Bit();
  is_little_endian_ = object_->isLittleEndian();

  if (isa<ELF32LEObjectFile>(*object_))
    return readHeaders<ELF32LE>(*object_, path_, sections_, segments_);
  if (isa<ELF32BEObjectFile>(*object_))
    return readHeaders<ELF32BE>(*object_, path_, sections_, segments_);
  if (isa<ELF64LEObjectFile>(*object_))
    return readHeaders<ELF64LE>(*object_, path_, sections_, segments_);
  return readHeaders<ELF64BE>(*object_, path_, sections_, segments_);
}

const ElfSection* ElfImage::findSection(std::string_view name) const {
  for (const ElfSection& section : sections_)
    if (section.name == name)
      return &section;
  return nullptr;
}

Expected<std::optional<StringRef>> ElfImage::sectionBytes(std::string_view name) const {
  const ElfSection* section = findSection(name);
  if (!section)
    return std::nullopt;
  return sectionBytes(*section);
}

Expected<std::optional<std::string>> ElfImage::sectionCopy(const ElfSection& section) const {
  if (!section.hasBytes())
    return std::nullopt;
  StringRef raw = bytes().substr(section.offset, section.size);
  if (!(section.flags & ELF::SHF_COMPRESSED))
    return raw.str();
  auto decompressor = Decompressor::create(section.name, raw, is_little_endian_, is_64_bit_);
  if (!decompressor)
    return fileError(path_, "section '" + section.name + "' has a bad compression header: " +
                                toString(decompressor.takeError()));
  // A hostile header may claim any size: refuse what no real section needs.
  if (!plausibleInflatedSize(decompressor->getDecompressedSize(), raw.size()))
    return fileError(
        path_, implausibleInflation(section.name, decompressor->getDecompressedSize(), raw.size()));
  std::string out(decompressor->getDecompressedSize(), '\0');
  if (inflateInChunks(raw, is_64_bit_, is_little_endian_, {out.data(), out.size()},
                      [](uint64_t, uint64_t) {}))
    return out;
  // Refused: LLVM's Decompressor (zlib's own decoder) inflates it or says why.
  if (Error error = decompressor->resizeAndDecompress(out))
    return fileError(path_, "cannot inflate section '" + section.name +
                                "': " + toString(std::move(error)));
  return out;
}

Expected<std::optional<StringRef>> ElfImage::sectionBytes(const ElfSection& section) const {
  if (!section.hasBytes())
    return std::nullopt;
  if (!(section.flags & ELF::SHF_COMPRESSED))
    return bytes().substr(section.offset, section.size);
  std::lock_guard<std::mutex> lock(inflated_mutex_);
  auto cached = inflated_.find(section.name);
  if (cached != inflated_.end())
    return StringRef(*cached->second);
  auto copy = sectionCopy(section);
  if (!copy)
    return copy.takeError();
  auto owned = std::make_unique<std::string>(std::move(**copy));
  StringRef result(*owned);
  inflated_.emplace(section.name, std::move(owned));
  return result;
}

std::string ElfImage::implausibleCompressedSection() const {
  for (const ElfSection& section : sections_) {
    if (!(section.flags & ELF::SHF_COMPRESSED) || !section.hasBytes())
      continue;
    StringRef raw = bytes().substr(section.offset, section.size);
    auto decompressor = Decompressor::create(section.name, raw, is_little_endian_, is_64_bit_);
    if (!decompressor) {
      consumeError(decompressor.takeError());
      continue; // LLVM reports these itself and skips the section
    }
    if (!plausibleInflatedSize(decompressor->getDecompressedSize(), raw.size()))
      return implausibleInflation(section.name, decompressor->getDecompressedSize(), raw.size());
  }
  return "";
}

uint64_t ElfImage::loadAddress() const {
  for (const ElfSegment& segment : segments_)
    if (segment.type == ELF::PT_LOAD)
      return segment.address;
  return 0;
}

std::vector<AddressRange> ElfImage::loadedRanges() const {
  std::vector<AddressRange> ranges;
  for (const ElfSegment& segment : segments_)
    if (segment.type == ELF::PT_LOAD && segment.memory_size > 0)
      ranges.push_back({segment.address, segment.address + segment.memory_size});
  return ranges;
}

std::string ElfImage::soname() const {
  const ElfSection* dynamic = findSection(".dynamic");
  if (!dynamic || !dynamic->hasBytes() || dynamic->link >= sections_.size())
    return "";
  const ElfSection& strings = sections_[dynamic->link];
  if (!strings.hasBytes())
    return "";
  StringRef entries = bytes().substr(dynamic->offset, dynamic->size);
  StringRef table = bytes().substr(strings.offset, strings.size);
  size_t word = is_64_bit_ ? 8 : 4;
  auto read = [&](size_t offset) -> uint64_t {
    uint64_t value = 0;
    for (size_t i = 0; i < word; ++i) {
      uint8_t byte = static_cast<uint8_t>(entries[offset + i]);
      value |= uint64_t(byte) << (8 * (is_little_endian_ ? i : word - 1 - i));
    }
    return value;
  };
  for (size_t offset = 0; offset + 2 * word <= entries.size(); offset += 2 * word) {
    uint64_t tag = read(offset);
    if (tag == ELF::DT_NULL)
      break;
    if (tag == ELF::DT_SONAME) {
      uint64_t name = read(offset + word);
      if (name >= table.size())
        return "";
      return table.substr(name).split('\0').first.str();
    }
  }
  return "";
}

bool ElfImage::hasDebugInfo() const {
  for (const ElfSection& section : sections_)
    if (section.hasBytes() && section.size > 0 &&
        (section.name == ".debug_info" || section.name == ".debug_line"))
      return true;
  return false;
}

} // namespace dumpsyms
