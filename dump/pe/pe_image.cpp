#include "dump/pe/pe_image.h"

#include "dump/object/elf_image.h"
#include "dump/pe/pe_header_check.h"

#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/Object/CVDebugRecord.h>
#include <llvm/Support/FileSystem.h>

namespace dumpsyms {

using namespace llvm;

bool looksLikePe(StringRef bytes) {
  return bytes.starts_with("MZ");
}

Expected<std::unique_ptr<PeImage>> PeImage::open(const std::string& path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return open(std::move(*buffer), path);
}

namespace {

// The bytes with the directory entries at `unbacked` cleared, in a private
// copy-on-write mapping of the file (or a copy of bytes in memory): only
// the header's page is copied.
Expected<std::unique_ptr<MemoryBuffer>> withoutDirectories(std::unique_ptr<MemoryBuffer> bytes,
                                                           const std::vector<uint64_t>& unbacked,
                                                           const std::string& path) {
  std::unique_ptr<WritableMemoryBuffer> writable;
  if (bytes->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap && sys::fs::exists(path)) {
    auto mapped = WritableMemoryBuffer::getFile(path, /*IsVolatile=*/false);
    if (!mapped)
      return fileError(path, "cannot read: " + mapped.getError().message());
    writable = std::move(*mapped);
  } else {
    writable = WritableMemoryBuffer::getNewUninitMemBuffer(bytes->getBufferSize(), path);
    std::memcpy(writable->getBufferStart(), bytes->getBufferStart(), bytes->getBufferSize());
  }
  if (writable->getBufferSize() != bytes->getBufferSize())
    return fileError(path, "cannot read: the file changed while it was read");
  for (uint64_t at : unbacked)
    std::memset(writable->getBufferStart() + at, 0, 8);
  return std::unique_ptr<MemoryBuffer>(std::move(writable));
}

} // namespace

Expected<std::unique_ptr<PeImage>> PeImage::open(std::unique_ptr<MemoryBuffer> bytes,
                                                 const std::string& path) {
  std::unique_ptr<PeImage> image(new PeImage);
  image->path_ = path;
  image->buffer_ = std::move(bytes);
  if (!looksLikePe(image->buffer_->getBuffer()))
    return fileError(path, "not a PE file (no MZ header)");
  std::vector<uint64_t> unbacked;
  std::string problem = peHeaderProblem(image->buffer_->getBuffer(), &unbacked);
  if (!problem.empty())
    return fileError(path, "corrupt PE file: " + problem);
  // (a debug companion's directories name tables it does not hold: LLVM
  // would follow them into other bytes of the file)
  if (!unbacked.empty()) {
    auto cleared = withoutDirectories(std::move(image->buffer_), unbacked, path);
    if (!cleared)
      return cleared.takeError();
    image->buffer_ = std::move(*cleared);
  }
  auto coff = object::COFFObjectFile::create(image->buffer_->getMemBufferRef());
  if (!coff)
    return fileError(path, "not a readable PE file: " + toString(coff.takeError()));
  image->coff_ = std::move(*coff);
  if (image->coff_->isRelocatableObject())
    return fileError(path, "a COFF object file, not a linked PE image");
  if (const auto* pe32 = image->coff_->getPE32Header())
    image->size_of_image_ = pe32->SizeOfImage;
  else if (const auto* pe64 = image->coff_->getPE32PlusHeader())
    image->size_of_image_ = pe64->SizeOfImage;
  else
    return fileError(path, "PE file without an optional header");

  image->readSections();
  // A corrupt debug directory is no reason to give up on the image: the
  // PDB can still be named with --debug-file.
  image->code_view_ = image->readCodeView();
  return image;
}

uint32_t PeSection::fileBytes() const {
  return virtual_size ? std::min(virtual_size, raw_size) : raw_size;
}

bool PeSection::holdsCode() const {
  return characteristics & (COFF::IMAGE_SCN_CNT_CODE | COFF::IMAGE_SCN_MEM_EXECUTE);
}

// (peHeaderProblem has checked that each section's raw data lies in the file)
void PeImage::readSections() {
  for (const object::SectionRef& ref : coff_->sections()) {
    const object::coff_section* header = coff_->getCOFFSection(ref);
    PeSection section;
    Expected<StringRef> name = coff_->getSectionName(header);
    if (name) {
      section.name = name->str();
    } else {
      // (a long name whose string table is gone: the raw "/N" stays)
      consumeError(name.takeError());
      section.name = StringRef(header->Name, strnlen(header->Name, COFF::NameSize)).str();
    }
    section.rva = header->VirtualAddress;
    section.virtual_size = header->VirtualSize;
    section.raw_offset = header->PointerToRawData;
    section.raw_size = header->SizeOfRawData;
    section.characteristics = header->Characteristics;
    sections_.push_back(std::move(section));
  }
}

const PeSection* PeImage::findSection(StringRef name) const {
  for (const PeSection& section : sections_)
    if (section.name == name)
      return &section;
  return nullptr;
}

bool PeImage::isDebugCompanion() const {
  bool code = false;
  for (const PeSection& section : sections_) {
    if (!section.holdsCode() || !section.virtual_size)
      continue;
    if (section.raw_size)
      return false;
    code = true;
  }
  return code;
}

// The first CodeView entry of the debug directory, read here rather than
// with COFFObjectFile::getDebugPDBInfo, which finds it by RVA with
// getRvaAndSizeAsBytes (see bytesAt).
std::optional<CodeViewRecord> PeImage::readCodeView() const {
  for (const object::debug_directory& entry : coff_->debug_directories()) {
    if (entry.Type != COFF::IMAGE_DEBUG_TYPE_CODEVIEW)
      continue;
    ArrayRef<uint8_t> bytes = bytesAt(entry.AddressOfRawData, entry.SizeOfData);
    if (bytes.size() < sizeof(codeview::DebugInfo) + 1)
      return std::nullopt;
    codeview::DebugInfo info;
    std::memcpy(&info, bytes.data(), sizeof info);
    if (info.Signature.CVSignature != OMF::Signature::PDB70)
      return std::nullopt;
    CodeViewRecord record;
    std::copy(std::begin(info.PDB70.Signature), std::end(info.PDB70.Signature),
              record.guid.begin());
    record.age = info.PDB70.Age;
    // The path runs to its NUL; padding may follow.
    record.pdb_path = toStringRef(bytes.drop_front(sizeof info)).split('\0').first.str();
    return record;
  }
  return std::nullopt;
}

// LLVM 19's COFFObjectFile::getRvaAndSizeAsBytes bounds the bytes by the
// section's size in memory, not by what the file holds: past the raw data
// it returns a pointer beyond the end of the file (docs/FUZZING.md). Only
// bytes the file holds are given here.
ArrayRef<uint8_t> PeImage::bytesAt(uint32_t rva, uint32_t size) const {
  StringRef file = buffer_->getBuffer();
  for (const object::SectionRef& ref : coff_->sections()) {
    const object::coff_section* section = coff_->getCOFFSection(ref);
    uint64_t start = section->VirtualAddress, raw = section->SizeOfRawData;
    uint64_t held = section->VirtualSize ? std::min<uint64_t>(section->VirtualSize, raw) : raw;
    if (rva < start || uint64_t(rva) + size > start + held)
      continue;
    uint64_t at = uint64_t(section->PointerToRawData) + (rva - start);
    if (at > file.size() || size > file.size() - at)
      return {};
    return arrayRefFromStringRef(file.substr(at, size));
  }
  return {};
}

ArrayRef<uint8_t> PeImage::bytesFrom(uint32_t rva) const {
  for (const object::SectionRef& ref : coff_->sections()) {
    const object::coff_section* section = coff_->getCOFFSection(ref);
    uint64_t start = section->VirtualAddress, raw = section->SizeOfRawData;
    uint64_t held = section->VirtualSize ? std::min<uint64_t>(section->VirtualSize, raw) : raw;
    if (rva >= start && rva < start + held)
      return bytesAt(rva, uint32_t(start + held - rva));
  }
  return {};
}

std::pair<uint32_t, uint32_t> PeImage::exportDirectory() const {
  const object::data_directory* directory = coff_->getDataDirectory(COFF::EXPORT_TABLE);
  if (!directory)
    return {0, 0};
  return {directory->RelativeVirtualAddress, directory->Size};
}

ArrayRef<uint8_t> PeImage::exceptionDirectory() const {
  const object::data_directory* directory = coff_->getDataDirectory(COFF::EXCEPTION_TABLE);
  if (!directory || directory->RelativeVirtualAddress == 0 || directory->Size == 0)
    return {};
  return bytesAt(directory->RelativeVirtualAddress, directory->Size);
}

} // namespace dumpsyms
