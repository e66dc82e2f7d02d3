#include "dump/object/elf_section_view.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/BinaryFormat/ELF.h>
#include <sys/mman.h>
#include <unistd.h>

namespace dumpsyms {

using namespace llvm;

namespace {

// The headers' page(s), then the whole file mapped after them.
class MappedView : public MemoryBuffer {
public:
  static Expected<std::unique_ptr<MappedView>> create(const std::string& path,
                                                      const std::string& headers) {
    long page = sysconf(_SC_PAGESIZE);
    size_t header_bytes = (headers.size() + page - 1) / page * page;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
    off_t file_size = ::lseek(fd, 0, SEEK_END);
    if (file_size < 0) {
      ::close(fd);
      return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
    }
    size_t total = header_bytes + static_cast<size_t>(file_size);
    void* region =
        ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
      ::close(fd);
      return fileError(path, std::string("cannot map it: ") + std::strerror(errno));
    }
    char* base = static_cast<char*>(region);
    std::memcpy(base, headers.data(), headers.size());
    if (file_size > 0 && ::mmap(base + header_bytes, static_cast<size_t>(file_size), PROT_READ,
                                MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
      int error = errno;
      ::munmap(region, total);
      ::close(fd);
      return fileError(path, std::string("cannot map it: ") + std::strerror(error));
    }
    ::close(fd);
    return std::unique_ptr<MappedView>(new MappedView(base, total, path));
  }
  ~MappedView() override { ::munmap(base_, size_); }
  StringRef getBufferIdentifier() const override { return name_; }
  BufferKind getBufferKind() const override { return MemoryBuffer_MMap; }

  static size_t headerBytes(size_t headers) {
    long page = sysconf(_SC_PAGESIZE);
    return (headers + page - 1) / page * page;
  }

private:
  MappedView(char* base, size_t size, std::string name)
      : base_(base), size_(size), name_(std::move(name)) {
    init(base_, base_ + size_, /*RequiresNullTerminator=*/false);
  }
  char* base_;
  size_t size_;
  std::string name_;
};

template <class T> void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// ELF header, section headers and their names; each section's data at
// its file offset past the headers' page(s).
template <class Ehdr, class Shdr, unsigned char Class>
std::string buildHeaders(uint16_t machine, const std::vector<ViewSection>& sections) {
  std::string names(1, '\0');
  std::vector<uint32_t> name_offsets;
  for (const ViewSection& section : sections) {
    name_offsets.push_back(static_cast<uint32_t>(names.size()));
    names += section.name;
    names += '\0';
  }
  uint32_t shstrtab_name = static_cast<uint32_t>(names.size());
  names += ".shstrtab";
  names += '\0';
  size_t count = sections.size() + 2; // null, the sections, .shstrtab
  size_t headers = sizeof(Ehdr) + count * sizeof(Shdr) + names.size();
  uint64_t data_start = MappedView::headerBytes(headers);

  Ehdr ehdr{};
  std::memcpy(ehdr.e_ident, ELF::ElfMagic, 4);
  ehdr.e_ident[ELF::EI_CLASS] = Class;
  ehdr.e_ident[ELF::EI_DATA] = ELF::ELFDATA2LSB;
  ehdr.e_ident[ELF::EI_VERSION] = ELF::EV_CURRENT;
  ehdr.e_type = ELF::ET_EXEC;
  ehdr.e_machine = machine;
  ehdr.e_version = ELF::EV_CURRENT;
  ehdr.e_shoff = sizeof(Ehdr);
  ehdr.e_ehsize = sizeof(Ehdr);
  ehdr.e_shentsize = sizeof(Shdr);
  ehdr.e_shnum = static_cast<uint16_t>(count);
  ehdr.e_shstrndx = static_cast<uint16_t>(count - 1);
  std::string out;
  append(out, ehdr);
  append(out, Shdr{});
  for (size_t i = 0; i < sections.size(); ++i) {
    Shdr shdr{};
    shdr.sh_name = name_offsets[i];
    shdr.sh_type = ELF::SHT_PROGBITS;
    shdr.sh_flags = sections[i].flags;
    shdr.sh_addr = sections[i].address;
    shdr.sh_offset = data_start + sections[i].offset;
    shdr.sh_size = sections[i].size;
    shdr.sh_addralign = 1;
    append(out, shdr);
  }
  Shdr strtab{};
  strtab.sh_name = shstrtab_name;
  strtab.sh_type = ELF::SHT_STRTAB;
  strtab.sh_offset = sizeof(Ehdr) + count * sizeof(Shdr);
  strtab.sh_size = names.size();
  strtab.sh_addralign = 1;
  append(out, strtab);
  out += names;
  return out;
}

} // namespace

Expected<std::unique_ptr<ElfImage>> elfSectionView(const std::string& path, const std::string& name,
                                                   ViewShape shape,
                                                   const std::vector<ViewSection>& sections) {
  std::string headers =
      shape.is_64_bit
          ? buildHeaders<ELF::Elf64_Ehdr, ELF::Elf64_Shdr, ELF::ELFCLASS64>(shape.machine, sections)
          : buildHeaders<ELF::Elf32_Ehdr, ELF::Elf32_Shdr, ELF::ELFCLASS32>(shape.machine,
                                                                            sections);
  auto view = MappedView::create(path, headers);
  if (!view)
    return view.takeError();
  return ElfImage::fromBuffer(std::move(*view), name);
}

} // namespace dumpsyms
