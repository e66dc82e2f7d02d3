#include "dump/pdb/pdb_file.h"

#include "dump/object/elf_image.h"
#include "dump/pdb/info_stream_check.h"
#include "dump/pdb/msf_directory.h"
#include "dump/pdb/nil_streams.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/BinaryFormat/Magic.h>
#include <llvm/DebugInfo/MSF/MSFCommon.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleDescriptor.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleList.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/InfoStream.h>
#include <llvm/Object/COFF.h>
#include <llvm/Support/BinaryByteStream.h>
#include <llvm/Support/MemoryBuffer.h>

namespace dumpsyms {

using namespace llvm;

bool looksLikePdb(StringRef bytes) {
  return bytes.starts_with(StringRef(msf::Magic, sizeof(msf::Magic)));
}

namespace {

// The module descriptors the DBI stream's module list really holds.
uint32_t describedModules(const pdb::DbiStream& dbi) {
  BinaryStreamRef data = dbi.getModiSubstreamData().StreamData;
  BinaryStreamReader reader(data);
  VarStreamArray<pdb::DbiModuleDescriptor> descriptors;
  if (Error error = reader.readArray(descriptors, data.getLength())) {
    consumeError(std::move(error));
    return 0;
  }
  uint32_t count = 0;
  for (auto it = descriptors.begin(); it != descriptors.end(); ++it)
    ++count;
  return count;
}

} // namespace

PdbFile::~PdbFile() = default;

Expected<std::unique_ptr<PdbFile>> PdbFile::open(const std::string& path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return open(std::move(*buffer), path);
}

Expected<std::unique_ptr<PdbFile>> PdbFile::open(std::unique_ptr<MemoryBuffer> bytes,
                                                 const std::string& path) {
  if (!looksLikePdb(bytes->getBuffer()))
    return fileError(path, "not a PDB (no MSF 7.00 signature)");
  auto directory = readMsfDirectory(bytes->getBuffer());
  if (!directory)
    return fileError(path, "corrupt PDB: " + toString(directory.takeError()));
  std::unique_ptr<PdbFile> pdb(new PdbFile);
  pdb->path_ = path;
  pdb->file_ = std::make_unique<pdb::PDBFile>(
      path, withNilStreamsEmpty(std::move(bytes), *directory), pdb->allocator_);
  auto fail = [&](const char* what, Error error) {
    return fileError(path, std::string("corrupt PDB: ") + what + ": " + toString(std::move(error)));
  };
  if (Error error = pdb->file_->parseFileHeaders())
    return fail("MSF headers", std::move(error));
  if (Error error = pdb->file_->parseStreamData())
    return fail("stream directory", std::move(error));
  if (std::string problem = infoStreamProblem(*pdb->file_); !problem.empty())
    return fileError(path, "corrupt PDB: PDB info stream: " + problem);

  auto info = pdb->file_->getPDBInfoStream();
  if (!info)
    return fail("PDB info stream", info.takeError());
  codeview::GUID guid = info->getGuid();
  std::copy(std::begin(guid.Guid), std::end(guid.Guid), pdb->identity_.guid.begin());
  pdb->identity_.age = info->getAge();

  auto dbi = pdb->file_->getPDBDbiStream();
  if (!dbi)
    return fail("DBI stream", dbi.takeError());
  // The DBI stream's age is the one the linker also writes into the PE's
  // RSDS record (the info stream's can be bumped by later PDB updates).
  pdb->identity_.age = dbi->getAge();
  pdb->identity_.machine = uint16_t(dbi->getMachineType());
  for (const object::coff_section& section : dbi->getSectionHeaders()) {
    pdb->section_rvas_.push_back(section.VirtualAddress);
    pdb->code_sections_.push_back(
        (section.Characteristics & (COFF::IMAGE_SCN_CNT_CODE | COFF::IMAGE_SCN_MEM_EXECUTE)) != 0);
  }
  uint32_t counted = dbi->modules().getModuleCount(), described = describedModules(*dbi);
  pdb->module_count_ = std::min(counted, described);
  if (counted != described)
    pdb->open_warnings_.push_back(fmt::format("the DBI stream counts {} modules but describes {}: "
                                              "{} are read",
                                              counted, described, pdb->module_count_));
  // An image rewritten after linking: the symbols' segments are the
  // original sections, their addresses mapped afterwards.
  OmapStreams omap = readOmapStreams(*pdb->file_);
  for (std::string& problem : omap.problems)
    pdb->open_warnings_.push_back(std::move(problem));
  if (omap.omap) {
    pdb->section_rvas_ = std::move(omap.original_section_rvas);
    pdb->code_sections_ = std::move(omap.original_code_sections);
    pdb->omap_ = std::move(omap.omap);
  }
  if (pdb->section_rvas_.empty())
    return fileError(path, "the PDB has no section headers stream: addresses cannot be made RVAs");
  return pdb;
}

std::optional<uint32_t> PdbFile::rva(uint16_t segment, uint32_t offset) const {
  if (segment == 0 || segment > section_rvas_.size())
    return std::nullopt;
  return section_rvas_[segment - 1] + offset;
}

bool PdbFile::isCodeSegment(uint16_t segment) const {
  return segment != 0 && segment <= code_sections_.size() && code_sections_[segment - 1];
}

} // namespace dumpsyms
