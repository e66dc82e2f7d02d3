#include "symstore/kept_binaries.h"

#include "dump_flow/macho_flow.h"
#include "object/elf_image.h"
#include "object/identifiers.h"
#include "pdb/pdb_file.h"
#include "pe/pe_image.h"
#include "store/atomic_file.h"
#include "store/file_compare.h"
#include "store/layout.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sys/file.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

enum class BinaryKind { Elf, Pe, Pdb, MachO, Other };

std::string fileStart(const std::string& path) {
  std::string bytes(64, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  ssize_t got = ::read(fd, bytes.data(), bytes.size());
  ::close(fd);
  bytes.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return bytes;
}

BinaryKind binaryKind(const std::string& path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return BinaryKind::Other; // a dSYM bundle given as the binary: its DWARF is a debug file
  std::string start = fileStart(path);
  if (llvm::StringRef(start).starts_with("\x7f"
                                         "ELF"))
    return BinaryKind::Elf;
  if (looksLikePdb(start))
    return BinaryKind::Pdb;
  if (looksLikePe(start))
    return BinaryKind::Pe;
  if (isMachOInput(path))
    return BinaryKind::MachO;
  return BinaryKind::Other;
}

std::string fileName(const std::string& path) {
  return llvm::sys::path::filename(path).str();
}

// Adds a file unless its store path is one no client could name (then a
// warning says why it is not kept).
void add(KeptBinaries& kept, const std::string& source, const std::string& relative) {
  if (isSafeRelativePath(relative))
    kept.files.push_back({source, relative});
  else
    kept.warnings.push_back(source + ": not kept: its store path '" + relative +
                            "' is not one a client can ask for");
}

llvm::Error addElf(KeptBinaries& kept, const std::string& binary, const std::string& debug_file,
                   const Module& identity) {
  auto image = ElfImage::open(binary);
  if (!image)
    return image.takeError();
  std::string name = fileName(binary);
  std::string executable = keptFileRelativePath(identity.name, identity.debug_id, name);
  add(kept, binary, executable);
  std::string debuginfo;
  if (!debug_file.empty()) {
    debuginfo = keptFileRelativePath(identity.name, identity.debug_id, name + ".debug");
    add(kept, debug_file, debuginfo);
  } else if ((*image)->hasDebugInfo()) {
    debuginfo = executable; // debuginfod serves such a file for both
  }
  std::vector<uint8_t> build_id = gnuBuildId(**image);
  if (build_id.empty() || kept.files.empty() || kept.files.front().relative != executable)
    return llvm::Error::success();
  if (!debuginfo.empty() && kept.files.back().relative != debuginfo)
    debuginfo.clear(); // refused above
  kept.build_id_relative = buildIdIndexRelativePath(llvm::toHex(build_id, /*LowerCase=*/true));
  kept.build_id_entry = {executable, debuginfo};
  return llvm::Error::success();
}

// Writes `text` at `path` atomically unless it is there already.
llvm::Error writeTextUnlessSame(const std::string& path, const std::string& text) {
  auto existing = llvm::MemoryBuffer::getFile(path);
  if (existing && (*existing)->getBuffer() == text)
    return llvm::Error::success();
  return writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

// Copies `source` to `target` atomically unless the same bytes are there.
llvm::Error copyUnlessSame(const std::string& source, const std::string& target) {
  if (sameFileBytes(source, target))
    return llvm::Error::success();
  int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return llvm::createStringError(source + ": cannot read it to keep it: " + std::strerror(errno));
  auto file = AtomicFile::create(target);
  if (!file) {
    ::close(in);
    return file.takeError();
  }
  char buffer[1 << 16];
  int error = 0;
  while (true) {
    ssize_t got = ::read(in, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      error = got < 0 ? errno : 0;
      break;
    }
    for (ssize_t done = 0; done < got && !error;) {
      ssize_t put = ::write(file->fd(), buffer + done, static_cast<size_t>(got - done));
      if (put < 0 && errno != EINTR)
        error = errno;
      done += put > 0 ? put : 0;
    }
    if (error)
      break;
  }
  ::close(in);
  if (error)
    return llvm::createStringError(target + ": cannot keep " + source + ": " +
                                   std::strerror(error));
  return file->commit();
}

llvm::Error createParent(const std::string& path) {
  if (std::error_code error = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return llvm::createStringError(path + ": cannot create the directory: " + error.message());
  return llvm::Error::success();
}

// Writes the module's .build-id entry unless the entry there names another
// module of the same build id whose executable path sorts first and is in
// the store. The decision is made under a lock on the entry's directory,
// so that dumps running side by side end with the same entry as dumps run
// one after the other, in any order.
llvm::Error writeBuildIdEntry(const std::string& store, const KeptBinaries& kept) {
  std::string target = store + "/" + kept.build_id_relative;
  if (llvm::Error error = createParent(target))
    return error;
  std::string parent = llvm::sys::path::parent_path(target).str();
  int lock = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    int error = errno;
    if (lock >= 0)
      ::close(lock);
    return llvm::createStringError(parent + ": cannot lock it: " + std::strerror(error));
  }
  llvm::Error result = llvm::Error::success();
  std::optional<BuildIdEntry> there;
  if (auto existing = llvm::MemoryBuffer::getFile(target))
    there = parseBuildIdEntry((*existing)->getBuffer().str());
  const BuildIdEntry& ours = kept.build_id_entry;
  bool keep_there = there && !there->executable.empty() && there->executable < ours.executable &&
                    llvm::sys::fs::exists(store + "/" + there->executable);
  if (!keep_there)
    result = writeTextUnlessSame(target, formatBuildIdEntry(ours));
  ::close(lock); // (releases the lock)
  return result;
}

} // namespace

llvm::Expected<KeptBinaries> keptBinaries(const std::string& binary, const std::string& debug_file,
                                          const Module& identity) {
  KeptBinaries kept;
  switch (binaryKind(binary)) {
  case BinaryKind::Elf:
    if (llvm::Error error = addElf(kept, binary, debug_file, identity))
      return error;
    break;
  case BinaryKind::Pe:
    add(kept, binary,
        keptFileRelativePath(identity.code_file, identity.code_id, identity.code_file));
    // Only a PDB: a MinGW PE's DWARF companion is no symbol-server file.
    if (!debug_file.empty() && binaryKind(debug_file) == BinaryKind::Pdb)
      add(kept, debug_file, keptFileRelativePath(identity.name, identity.debug_id, identity.name));
    break;
  case BinaryKind::Pdb:
    add(kept, binary, keptFileRelativePath(identity.name, identity.debug_id, identity.name));
    break;
  case BinaryKind::MachO:
    add(kept, binary, keptFileRelativePath(identity.name, identity.debug_id, fileName(binary)));
    if (!debug_file.empty() && llvm::sys::fs::is_regular_file(debug_file))
      add(kept, debug_file,
          keptFileRelativePath(identity.name, identity.debug_id, fileName(binary) + ".dwarf"));
    break;
  case BinaryKind::Other:
    break;
  }
  return kept;
}

std::vector<std::string> keptPaths(const KeptBinaries& kept) {
  std::vector<std::string> paths;
  for (const KeptFile& file : kept.files)
    paths.push_back(file.relative);
  if (!kept.build_id_relative.empty())
    paths.push_back(kept.build_id_relative);
  return paths;
}

bool keptBinariesPresent(const std::string& store, const KeptBinaries& kept) {
  for (const KeptFile& file : kept.files)
    if (!llvm::sys::fs::exists(store + "/" + file.relative))
      return false;
  return kept.build_id_relative.empty() ||
         llvm::sys::fs::exists(store + "/" + kept.build_id_relative);
}

llvm::Expected<std::vector<std::string>> keepBinaries(const std::string& store,
                                                      const KeptBinaries& kept) {
  for (const KeptFile& file : kept.files) {
    std::string target = store + "/" + file.relative;
    if (llvm::Error error = createParent(target))
      return error;
    if (llvm::Error error = copyUnlessSame(file.source, target))
      return error;
  }
  // The index entry last: a debuginfod request finds it only when the
  // files it names are in place.
  if (!kept.build_id_relative.empty())
    if (llvm::Error error = writeBuildIdEntry(store, kept))
      return error;
  return keptPaths(kept);
}

} // namespace dumpsyms
