#include "pe/pe_image.h"

#include "object/elf_image.h"
#include "pe/pe_header_check.h"

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

  const codeview::DebugInfo* info = nullptr;
  StringRef pdb_name;
  // A corrupt debug directory is no reason to give up on the image: the
  // PDB can still be named with --debug-file.
  if (Error error = image->coff_->getDebugPDBInfo(info, pdb_name))
    consumeError(std::move(error));
  else if (info && info->Signature.CVSignature == OMF::Signature::PDB70) {
    CodeViewRecord record;
    std::copy(std::begin(info->PDB70.Signature), std::end(info->PDB70.Signature),
              record.guid.begin());
    record.age = info->PDB70.Age;
    record.pdb_path = pdb_name.str();
    image->code_view_ = std::move(record);
  }
  return image;
}

ArrayRef<uint8_t> PeImage::bytesAt(uint32_t rva, uint32_t size) const {
  ArrayRef<uint8_t> bytes;
  if (Error error = coff_->getRvaAndSizeAsBytes(rva, size, bytes)) {
    consumeError(std::move(error));
    return {};
  }
  return bytes;
}

ArrayRef<uint8_t> PeImage::exceptionDirectory() const {
  const object::data_directory* directory = coff_->getDataDirectory(COFF::EXCEPTION_TABLE);
  if (!directory || directory->RelativeVirtualAddress == 0 || directory->Size == 0)
    return {};
  return bytesAt(directory->RelativeVirtualAddress, directory->Size);
}

} // namespace dumpsyms
