#include "dump/macho/macho_image.h"

#include "dump/object/elf_image.h"

#include <algorithm>
#include <cstring>
#include <llvm/BinaryFormat/Magic.h>
#include <llvm/Object/MachOUniversal.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

bool isUniversal(file_magic magic) {
  return magic == file_magic::macho_universal_binary;
}

bool isThinMachO(file_magic magic) {
  switch (magic) {
  case file_magic::macho_object:
  case file_magic::macho_executable:
  case file_magic::macho_fixed_virtual_memory_shared_lib:
  case file_magic::macho_core:
  case file_magic::macho_preload_executable:
  case file_magic::macho_dynamically_linked_shared_lib:
  case file_magic::macho_dynamic_linker:
  case file_magic::macho_bundle:
  case file_magic::macho_dynamically_linked_shared_lib_stub:
  case file_magic::macho_dsym_companion:
  case file_magic::macho_kext_bundle:
  case file_magic::macho_file_set:
    return true;
  default:
    return false;
  }
}

// Whether `wanted` names the cpu: as --arch spells it, or as Breakpad does.
bool archMatches(const std::string& wanted, uint32_t type, uint32_t subtype) {
  if (wanted == machOArchName(type, subtype))
    return true;
  std::optional<std::string> cpu = machOCpuName(type, subtype);
  return cpu && wanted == *cpu;
}

std::string archList(const std::vector<MachOSlice>& slices) {
  std::string list;
  for (const MachOSlice& slice : slices)
    list += (list.empty() ? "" : ", ") + slice.arch;
  return list;
}

Expected<std::vector<MachOSlice>> slicesOf(MemoryBufferRef buffer, const std::string& path) {
  std::vector<MachOSlice> out;
  file_magic magic = identify_magic(buffer.getBuffer());
  if (isUniversal(magic)) {
    auto universal = MachOUniversalBinary::create(buffer);
    if (!universal)
      return fileError(path, "a corrupt universal file: " + toString(universal.takeError()));
    for (const MachOUniversalBinary::ObjectForArch& object : (*universal)->objects()) {
      MachOSlice slice;
      slice.cpu_type = object.getCPUType();
      slice.cpu_subtype = object.getCPUSubType();
      slice.arch = machOArchName(slice.cpu_type, slice.cpu_subtype);
      slice.offset = object.getOffset();
      slice.size = object.getSize();
      if (slice.offset > buffer.getBufferSize() ||
          slice.size > buffer.getBufferSize() - slice.offset)
        return fileError(path, "its " + slice.arch + " slice lies past the end of the file");
      out.push_back(slice);
    }
    if (out.empty())
      return fileError(path, "a universal file with no slices");
    return out;
  }
  if (!isThinMachO(magic))
    return fileError(path, "not a Mach-O file");
  auto object = ObjectFile::createMachOObjectFile(buffer);
  if (!object)
    return fileError(path, "corrupt Mach-O: " + toString(object.takeError()));
  MachOSlice slice;
  slice.cpu_type =
      (*object)->is64Bit() ? (*object)->getHeader64().cputype : (*object)->getHeader().cputype;
  slice.cpu_subtype = (*object)->is64Bit() ? (*object)->getHeader64().cpusubtype
                                           : (*object)->getHeader().cpusubtype;
  slice.arch = machOArchName(slice.cpu_type, slice.cpu_subtype);
  slice.size = buffer.getBufferSize();
  out.push_back(slice);
  return out;
}

} // namespace

std::string machOArchName(uint32_t cpu_type, uint32_t cpu_subtype) {
  const char* flag = nullptr;
  MachOObjectFile::getArchTriple(cpu_type, cpu_subtype, nullptr, &flag);
  if (flag)
    return flag;
  return "cputype " + std::to_string(cpu_type);
}

std::optional<std::string> machOCpuName(uint32_t cpu_type, uint32_t cpu_subtype) {
  uint32_t subtype = cpu_subtype & ~uint32_t(MachO::CPU_SUBTYPE_MASK);
  switch (cpu_type) {
  case MachO::CPU_TYPE_I386:
    return "x86";
  case MachO::CPU_TYPE_X86_64:
    return subtype == MachO::CPU_SUBTYPE_X86_64_H ? "x86_64h" : "x86_64";
  case MachO::CPU_TYPE_ARM64:
    return subtype == MachO::CPU_SUBTYPE_ARM64E ? "arm64e" : "arm64";
  case MachO::CPU_TYPE_ARM64_32:
    return "arm64_32";
  case MachO::CPU_TYPE_ARM:
    return "arm";
  case MachO::CPU_TYPE_POWERPC:
    return "ppc";
  case MachO::CPU_TYPE_POWERPC64:
    return "ppc64";
  default:
    return std::nullopt;
  }
}

bool MachOSection::holdsCode() const {
  return (flags & (MachO::S_ATTR_PURE_INSTRUCTIONS | MachO::S_ATTR_SOME_INSTRUCTIONS)) != 0;
}

bool MachOSection::hasBytes() const {
  uint32_t type = flags & MachO::SECTION_TYPE;
  return offset != 0 && size != 0 && type != MachO::S_ZEROFILL && type != MachO::S_GB_ZEROFILL &&
         type != MachO::S_THREAD_LOCAL_ZEROFILL;
}

bool MachOImage::isMachO(const std::string& path) {
  auto buffer = MemoryBuffer::getFileSlice(path, 32, 0); // identify_magic reads the file type
  if (!buffer)
    return false;
  file_magic magic = identify_magic((*buffer)->getBuffer());
  return isUniversal(magic) || isThinMachO(magic);
}

Expected<std::vector<MachOSlice>> MachOImage::slices(const std::string& path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  return slicesOf((*buffer)->getMemBufferRef(), path);
}

Expected<std::unique_ptr<MachOImage>> MachOImage::open(const std::string& path,
                                                       const std::string& arch) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  auto slices = slicesOf((*buffer)->getMemBufferRef(), path);
  if (!slices)
    return slices.takeError();
  const MachOSlice* chosen = nullptr;
  bool universal = isUniversal(identify_magic((*buffer)->getBuffer()));
  if (arch.empty()) {
    if (slices->size() > 1)
      return fileError(path,
                       "a universal file of " + archList(*slices) + ": say which with --arch NAME");
    chosen = &slices->front();
  } else {
    for (const MachOSlice& slice : *slices)
      if (archMatches(arch, slice.cpu_type, slice.cpu_subtype))
        chosen = &slice;
    if (!chosen)
      return fileError(path, std::string(universal ? "a universal file of " : "a Mach-O file of ") +
                                 archList(*slices) + ": no " + arch + " slice");
  }
  std::unique_ptr<MachOImage> image(new MachOImage);
  image->path_ = path;
  image->buffer_ = std::move(*buffer);
  image->slice_offset_ = chosen->offset;
  image->slice_ = image->buffer_->getBuffer().substr(chosen->offset, chosen->size);
  image->cpu_type_ = chosen->cpu_type;
  image->cpu_subtype_ = chosen->cpu_subtype;
  image->arch_ = chosen->arch;
  if (Error error = image->parse())
    return error;
  return image;
}

Error MachOImage::parse() {
  auto object = ObjectFile::createMachOObjectFile(MemoryBufferRef(slice_, path_));
  if (!object)
    return fileError(path_, "corrupt Mach-O" + (arch_.empty() ? "" : " (" + arch_ + ")") + ": " +
                                toString(object.takeError()));
  object_ = std::move(*object);
  // (a universal file's header and its slice's could disagree: the slice's own counts)
  cpu_type_ = object_->is64Bit() ? object_->getHeader64().cputype : object_->getHeader().cputype;
  cpu_subtype_ =
      object_->is64Bit() ? object_->getHeader64().cpusubtype : object_->getHeader().cpusubtype;
  arch_ = machOArchName(cpu_type_, cpu_subtype_);
  file_type_ = object_->is64Bit() ? object_->getHeader64().filetype : object_->getHeader().filetype;
  uint32_t index = 0;
  // A segment and its sections, 32- or 64-bit alike.
  auto addSegment = [&](const auto& segment, const auto& sectionAt) {
    segments_.push_back({std::string(segment.segname, strnlen(segment.segname, 16)), segment.vmaddr,
                         segment.vmsize, segment.fileoff, segment.filesize,
                         static_cast<uint32_t>(segment.maxprot)});
    for (uint32_t i = 0; i < segment.nsects; ++i) {
      auto s = sectionAt(i);
      MachOSection section;
      section.segment = std::string(s.segname, strnlen(s.segname, 16));
      section.name = std::string(s.sectname, strnlen(s.sectname, 16));
      section.address = s.addr;
      section.size = s.size;
      section.offset = s.offset;
      section.flags = s.flags;
      section.index = ++index;
      sections_.push_back(std::move(section));
    }
  };
  for (const MachOObjectFile::LoadCommandInfo& command : object_->load_commands()) {
    switch (command.C.cmd) {
    case MachO::LC_SEGMENT_64:
      addSegment(object_->getSegment64LoadCommand(command),
                 [&](uint32_t i) { return object_->getSection64(command, i); });
      break;
    case MachO::LC_SEGMENT:
      addSegment(object_->getSegmentLoadCommand(command),
                 [&](uint32_t i) { return object_->getSection(command, i); });
      break;
    case MachO::LC_UUID: {
      MachO::uuid_command command_uuid = object_->getUuidCommand(command);
      std::array<uint8_t, 16> bytes;
      std::memcpy(bytes.data(), command_uuid.uuid, 16);
      uuid_ = bytes;
      break;
    }
    case MachO::LC_ID_DYLIB: {
      MachO::dylib_command dylib = object_->getDylibIDLoadCommand(command);
      if (dylib.dylib.name < dylib.cmdsize)
        install_name_.assign(
            command.Ptr + dylib.dylib.name,
            strnlen(command.Ptr + dylib.dylib.name, dylib.cmdsize - dylib.dylib.name));
      break;
    }
    default:
      break;
    }
  }
  return Error::success();
}

const MachOSection* MachOImage::findSection(StringRef segment, StringRef name) const {
  for (const MachOSection& section : sections_)
    if (section.segment == segment && section.name == name)
      return &section;
  return nullptr;
}

std::optional<StringRef> MachOImage::sectionBytes(const MachOSection& section) const {
  if (!section.hasBytes() || section.offset > slice_.size() ||
      section.size > slice_.size() - section.offset)
    return std::nullopt;
  return slice_.substr(section.offset, section.size);
}

uint64_t MachOImage::textAddress() const {
  for (const MachOSegment& segment : segments_)
    if (segment.name == "__TEXT")
      return segment.address;
  return 0;
}

std::vector<AddressRange> MachOImage::loadedRanges() const {
  std::vector<AddressRange> ranges;
  for (const MachOSegment& segment : segments_)
    if (segment.size != 0 && segment.name != "__PAGEZERO" &&
        segment.address + segment.size > segment.address)
      ranges.push_back({segment.address, segment.address + segment.size});
  return ranges;
}

std::vector<uint64_t> MachOImage::functionStarts() const {
  std::vector<uint64_t> starts;
  uint64_t base = textAddress();
  for (uint64_t offset : object_->getFunctionStarts()) // (offsets from __TEXT)
    starts.push_back(base + offset);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

bool MachOImage::hasDwarf() const {
  return std::any_of(sections_.begin(), sections_.end(), [&](const MachOSection& section) {
    return section.segment == "__DWARF" && StringRef(section.name).starts_with("__debug_") &&
           sectionBytes(section).has_value();
  });
}

} // namespace dumpsyms
