#include "pe/pe_image.h"

#include "object/elf_image.h"
#include "pe/pe_header_check.h"

#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/Object/CVDebugRecord.h>

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

Expected<std::unique_ptr<PeImage>> PeImage::open(std::unique_ptr<MemoryBuffer> bytes,
                                                 const std::string& path) {
  std::unique_ptr<PeImage> image(new PeImage);
  image->path_ = path;
  image->buffer_ = std::move(bytes);
  if (!looksLikePe(image->buffer_->getBuffer()))
    return fileError(path, "not a PE file (no MZ header)");
  std::string problem = peHeaderProblem(image->buffer_->getBuffer());
  if (!problem.empty())
    return fileError(path, "corrupt PE file: " + problem);
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

  // A corrupt debug directory is no reason to give up on the image: the
  // PDB can still be named with --debug-file.
  image->code_view_ = image->readCodeView();
  return image;
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
