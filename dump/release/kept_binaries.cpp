#include "dump/release/kept_binaries.h"

#include "common/errors/diagnostics.h"
#include "common/files/atomic_file.h"
#include "common/files/file_compare.h"
#include "common/files/file_start.h"
#include "dump/flows/macho_flow.h"
#include "dump/locate/debug_file_locator.h"
#include "dump/locate/debug_links.h"
#include "dump/object/elf_image.h"
#include "dump/object/identifiers.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pe/pe_image.h"
#include "store/layout/layout.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sys/file.h>
#include <tuple>
#include <unistd.h>

namespace dumpsyms {
namespace {

enum class BinaryKind { Elf, Pe, Pdb, MachO, Other };

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

// The dwz supplementary file the DWARF of `dwarf_image` (at `dwarf_path`)
// refers to, kept beside the module as <file name>.dwz with an entry under
// its own build id. Nothing when there is none, or it cannot be found (the
// dump has warned), or its link carries no build id to index it by.
void addDwzFile(KeptBinaries& kept, const std::string& binary, const ElfImage& dwarf_image,
                const std::string& dwarf_path, const Module& identity,
                const std::vector<std::string>& debug_dirs, bool debuginfod) {
  std::optional<AltLink> link = readAltLink(dwarf_image);
  if (!link || link->build_id.empty())
    return;
  SearchPaths paths;
  paths.debug_dirs = debug_dirs;
  paths.debuginfod = debuginfod;
  Diagnostics ignored;
  std::optional<LocatedFile> alt =
      DebugFileLocator(binary, paths).findAltFile(dwarf_image, dwarf_path, ignored);
  if (!alt)
    return;
  std::string relative =
      keptFileRelativePath(identity.name, identity.debug_id, fileName(binary) + ".dwz");
  size_t before = kept.files.size();
  add(kept, alt->path, relative);
  if (kept.files.size() > before)
    kept.build_id_entries.push_back(
        {buildIdIndexRelativePath(BuildId(link->build_id)), BuildIdEntry{"", relative}});
}

llvm::Error addElf(KeptBinaries& kept, const std::string& binary, const std::string& debug_file,
                   const Module& identity, const std::vector<std::string>& debug_dirs,
                   bool debuginfod) {
  auto image = ElfImage::open(binary);
  if (!image)
    return image.takeError();
  std::string name = fileName(binary);
  std::string executable = keptFileRelativePath(identity.name, identity.debug_id, name);
  add(kept, binary, executable);
  bool executable_kept = !kept.files.empty() && kept.files.back().relative == executable;
  std::string debuginfo;
  if (!debug_file.empty()) {
    std::string relative = keptFileRelativePath(identity.name, identity.debug_id, name + ".debug");
    add(kept, debug_file, relative);
    if (!kept.files.empty() && kept.files.back().relative == relative) {
      debuginfo = relative;
      if (auto debug_image = ElfImage::open(debug_file))
        addDwzFile(kept, binary, **debug_image, debug_file, identity, debug_dirs, debuginfod);
      else
        llvm::consumeError(debug_image.takeError()); // the dump has said why
    }
  } else if ((*image)->hasDebugInfo() && executable_kept) {
    debuginfo = executable; // debuginfod serves such a file for both
    addDwzFile(kept, binary, **image, binary, identity, debug_dirs, debuginfod);
  }
  std::vector<uint8_t> build_id = gnuBuildId(**image);
  if (!build_id.empty() && executable_kept)
    kept.build_id_entries.insert(
        kept.build_id_entries.begin(),
        {buildIdIndexRelativePath(BuildId(build_id)), BuildIdEntry{executable, debuginfo}});
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

// Writes a .build-id entry unless the entry there is another module's of
// the same build id that sorts first (by its executable's path, then its
// debug file's) and whose files are in the store. The decision is made
// under a lock on the entry's directory, so that dumps running side by side
// end with the same entry as dumps run one after the other, in any order.
llvm::Error writeBuildIdEntry(const std::string& store, const std::string& relative,
                              const BuildIdEntry& ours) {
  std::string target = store + "/" + relative;
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
  std::optional<BuildIdEntry> there;
  if (auto existing = llvm::MemoryBuffer::getFile(target))
    there = parseBuildIdEntry((*existing)->getBuffer().str());
  auto present = [&](const std::string& path) {
    return path.empty() || llvm::sys::fs::exists(store + "/" + path);
  };
  bool keep_there =
      there &&
      std::tie(there->executable, there->debuginfo) < std::tie(ours.executable, ours.debuginfo) &&
      present(there->executable) && present(there->debuginfo);
  llvm::Error result =
      keep_there ? llvm::Error::success() : writeTextUnlessSame(target, formatBuildIdEntry(ours));
  ::close(lock); // (releases the lock)
  return result;
}

} // namespace

llvm::Expected<KeptBinaries> keptBinaries(const std::string& binary, const std::string& debug_file,
                                          const Module& identity,
                                          const std::vector<std::string>& debug_dirs,
                                          bool debuginfod) {
  KeptBinaries kept;
  switch (binaryKind(binary)) {
  case BinaryKind::Elf:
    if (llvm::Error error = addElf(kept, binary, debug_file, identity, debug_dirs, debuginfod))
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
  for (const auto& [relative, entry] : kept.build_id_entries)
    paths.push_back(relative);
  return paths;
}

bool keptBinariesPresent(const std::string& store, const KeptBinaries& kept) {
  for (const KeptFile& file : kept.files)
    if (!llvm::sys::fs::exists(store + "/" + file.relative))
      return false;
  for (const auto& [relative, entry] : kept.build_id_entries)
    if (!llvm::sys::fs::exists(store + "/" + relative))
      return false;
  return true;
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
  for (const auto& [relative, entry] : kept.build_id_entries)
    if (llvm::Error error = writeBuildIdEntry(store, relative, entry))
      return error;
  return keptPaths(kept);
}

} // namespace dumpsyms
