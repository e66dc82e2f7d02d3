#include "dump/release/release_plan.h"

#include "dump/flows/elf_flow.h"
#include "dump/locate/debug_file_locator.h"
#include "dump/locate/debug_links.h"
#include "dump/object/identifiers.h"
#include "dump/release/kept_binaries.h"
#include "dump/release/macho_files.h"
#include "dump/release/windows_files.h"
#include "store/layout/layout.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/xxhash.h>
#include <map>
#include <memory>
#include <set>
#include <unistd.h>

namespace dumpsyms {

namespace {

// Whether the file is an ELF file other than a core dump (a core left in a
// release tree is no module); an error when it cannot be read.
llvm::Expected<bool> isElfOtherThanCore(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
  unsigned char header[18] = {};
  ssize_t got = read(fd, header, sizeof header);
  int saved = errno;
  close(fd);
  if (got < 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(saved));
  if (got < 4 || header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F')
    return false;
  bool big_endian = header[llvm::ELF::EI_DATA] == llvm::ELF::ELFDATA2MSB;
  unsigned type = big_endian ? header[16] << 8 | header[17] : header[17] << 8 | header[16];
  return got < 18 || type != llvm::ELF::ET_CORE;
}

// Whether the image holds code of its own: a separate debug file keeps its
// code sections only as SHT_NOBITS headers; .dwo, .dwp and dwz files have none.
bool hasCode(const ElfImage& image) {
  if (image.sections().empty())
    return std::any_of(image.segments().begin(), image.segments().end(), [](const ElfSegment& s) {
      return s.type == llvm::ELF::PT_LOAD && s.file_size > 0;
    });
  return std::any_of(image.sections().begin(), image.sections().end(), [](const ElfSection& s) {
    return (s.flags & llvm::ELF::SHF_EXECINSTR) && s.hasBytes() && s.size > 0;
  });
}

// Bytes of DWARF a dump of this image reads, inflated: what its memory grows with.
uint64_t dwarfBytes(const ElfImage& image) {
  uint64_t total = 0;
  for (const ElfSection& s : image.sections()) {
    llvm::StringRef name(s.name);
    if (!s.hasBytes() || !(name.starts_with(".debug_") || name.starts_with(".zdebug_")))
      continue;
    bool compressed = (s.flags & llvm::ELF::SHF_COMPRESSED) || name.starts_with(".zdebug_");
    total += compressed ? s.size * 4 : s.size;
  }
  return total;
}

bool underBuildIdTree(const std::string& key) {
  return key.rfind(".build-id/", 0) == 0 || key.find("/.build-id/") != std::string::npos;
}

struct Examined {
  const FoundFile* file = nullptr;
  std::unique_ptr<ElfImage> image;
  std::string error;
  bool debug_file = false;
  std::vector<uint8_t> build_id;
  Module identity;
  // A PE with a CodeView record, or a PDB (then `image` is null).
  std::optional<WindowsFile> windows;
  std::string windows_pdb; // for a PE: the release's PDB with its id
  // One slice of a Mach-O file (a universal file is one Examined a slice).
  std::optional<MachOSliceFile> macho;
  std::string macho_dsym;        // for a binary: the release's dSYM with its UUID
  uint64_t macho_dsym_bytes = 0; // that dSYM's DWARF

  // The candidate's key: a universal file's slices are told apart by arch.
  std::string key() const {
    return macho && macho->universal ? file->key + "#" + macho->arch : file->key;
  }
};

// What makes two files one module: the name and the debug id, or, where
// the debug id names no build, the code id.
std::pair<std::string, std::string> moduleKey(const Module& identity) {
  if (identity.debug_id.isNull())
    return {identity.name, "code id " + identity.code_id.str()};
  return {identity.name, identity.debug_id.str()};
}

// With --keep-binaries, whether the store holds this module's binaries
// too: a module stored without them is dumped again to keep them (its .sym
// is left as it is when the dump gives the same bytes). When it holds
// them, `entry` lists them.
bool binariesKept(const Examined& e, const std::string& elf_debug_file, const Options& options,
                  const std::string& store, ManifestEntry& entry) {
  std::string debug_file = e.macho ? e.macho_dsym : e.windows ? e.windows_pdb : elf_debug_file;
  // (no debuginfod here: the plan reads local files only)
  auto kept = keptBinaries(e.file->path, debug_file, e.identity, options.debug_dirs, false);
  if (!kept) {
    llvm::consumeError(kept.takeError());
    return false; // the dump says what is wrong
  }
  if (!keptBinariesPresent(store, *kept))
    return false;
  entry.kept = keptPaths(*kept);
  return true;
}

} // namespace

unsigned shardOf(const std::string& key, unsigned shard_count) {
  if (shard_count <= 1)
    return 0;
  return static_cast<unsigned>(llvm::xxh3_64bits(llvm::StringRef(key)) % shard_count);
}

ReleasePlan planRelease(const ReleaseScan& scan, const Options& dump_options,
                        const PlanOptions& plan_options) {
  ReleasePlan plan;
  // 1. Every file: ELF or not, debug file or module. Every shard examines
  //    the whole release, so that copies of one module are resolved the
  //    same way on every machine and each module is dumped by one shard.
  std::vector<Examined> examined;
  std::set<std::string> debuglink_names;
  for (const FoundFile& file : scan.files) {
    Examined e;
    e.file = &file;
    if (!file.error.empty()) {
      e.error = file.path + ": " + file.error;
    } else if (auto elf = isElfOtherThanCore(file.path); !elf) {
      e.error = llvm::toString(elf.takeError());
    } else if (!*elf) {
      if (auto macho = examineMachOFile(file.path)) {
        if (!*macho) {
          e.error = llvm::toString(macho->takeError());
        } else {
          for (MachOSliceFile& slice : **macho) {
            Examined one;
            one.file = &file;
            one.macho = std::move(slice);
            examined.push_back(std::move(one));
          }
          continue;
        }
        examined.push_back(std::move(e));
        continue;
      }
      auto windows = examineWindowsFile(file.path);
      if (!windows) {
        ++plan.non_elf;
        continue;
      }
      if (!*windows)
        e.error = llvm::toString(windows->takeError());
      else
        e.windows = std::move(**windows);
    } else {
      auto image = ElfImage::open(file.path);
      if (!image) {
        e.error = llvm::toString(image.takeError());
      } else {
        e.image = std::move(*image);
        e.build_id = gnuBuildId(*e.image);
        e.debug_file = !hasCode(*e.image) || underBuildIdTree(file.key);
        if (!e.debug_file)
          if (auto link = readDebugLink(*e.image))
            debuglink_names.insert(link->name);
      }
    }
    examined.push_back(std::move(e));
  }
  // A file another candidate names in its .gnu_debuglink serves that file,
  // even when it holds code (an unstripped copy kept as the debug file).
  for (Examined& e : examined)
    if (e.image && !e.debug_file &&
        debuglink_names.count(e.file->path.substr(e.file->path.find_last_of('/') + 1)))
      e.debug_file = true;

  // PDBs serve the PE with their GUID and age; one no PE claims is a
  // module of its own.
  std::map<DebugId, std::string> pdb_by_id;
  for (Examined& e : examined)
    if (e.windows && e.windows->is_pdb)
      pdb_by_id.emplace(e.windows->identity.debug_id, e.file->path);
  std::set<DebugId> claimed;
  for (Examined& e : examined)
    if (e.windows && !e.windows->is_pdb) {
      auto pdb = pdb_by_id.find(e.windows->identity.debug_id);
      if (pdb != pdb_by_id.end()) {
        e.windows_pdb = pdb->second;
        claimed.insert(pdb->first);
      }
    }
  for (Examined& e : examined)
    if (e.windows && e.windows->is_pdb && claimed.count(e.windows->identity.debug_id)) {
      e.debug_file = true;
      ++plan.debug_files;
    }

  // dSYMs serve the binary slice with their UUID, wherever they are in the
  // release; one no binary claims is a module of its own.
  std::map<DebugId, std::pair<std::string, uint64_t>> dsym_by_id;
  for (Examined& e : examined)
    if (e.macho && e.macho->is_dsym)
      dsym_by_id.emplace(e.macho->identity.debug_id,
                         std::make_pair(e.file->path, e.macho->dwarf_bytes));
  std::set<DebugId> claimed_dsyms;
  for (Examined& e : examined)
    if (e.macho && !e.macho->is_dsym)
      if (auto dsym = dsym_by_id.find(e.macho->identity.debug_id); dsym != dsym_by_id.end()) {
        e.macho_dsym = dsym->second.first;
        e.macho_dsym_bytes = dsym->second.second;
        claimed_dsyms.insert(dsym->first);
      }
  for (Examined& e : examined)
    if (e.macho && e.macho->is_dsym && claimed_dsyms.count(e.macho->identity.debug_id)) {
      e.debug_file = true;
      ++plan.debug_files;
    }

  // Separate debug files found in the release, by build-id.
  std::map<std::vector<uint8_t>, std::string> debug_by_build_id;
  for (Examined& e : examined)
    if (e.image && e.debug_file) {
      ++plan.debug_files;
      if (!e.build_id.empty() && e.image->hasDebugInfo())
        debug_by_build_id.emplace(e.build_id, e.file->path);
    }

  // 2. Module identities, and one dump per module (name + id).
  // Of several files that are one module, the one with the most debug
  // info at hand is dumped; then a file reached by its own name rather than
  // through a symlink; then the first in scan order.
  struct ModuleChoice {
    size_t examined = 0;
    int rank = 0;
  };
  std::map<std::pair<std::string, std::string>, ModuleChoice> chosen;
  // Candidate `i` for its module, ranked (higher first; a file reached by
  // its own name before one reached through a symlink).
  auto offer = [&](size_t i, int rank) {
    const Examined& e = examined[i];
    rank = rank * 2 + (e.file->symlink ? 0 : 1);
    auto [it, inserted] = chosen.try_emplace(moduleKey(e.identity), ModuleChoice{i, rank});
    if (!inserted && rank > it->second.rank)
      it->second = {i, rank};
  };
  std::vector<std::string> separate_debug(examined.size());
  std::vector<std::string> separate_how(examined.size());
  for (size_t i = 0; i < examined.size(); ++i) {
    Examined& e = examined[i];
    if (e.windows && !e.debug_file) {
      // A PE with its PDB at hand first, then a lone PDB, then a PE whose
      // dump must find its PDB itself.
      e.identity = e.windows->identity;
      offer(i, !e.windows_pdb.empty() ? 2 : e.windows->is_pdb ? 1 : 0);
      continue;
    }
    if (e.macho && !e.debug_file) {
      // A binary with its dSYM at hand first, then one with DWARF of its
      // own or a lone dSYM, then a binary whose dump must look itself.
      e.identity = e.macho->identity;
      offer(i, !e.macho_dsym.empty() ? 2 : e.macho->has_dwarf ? 1 : 0);
      continue;
    }
    if (!e.image || e.debug_file)
      continue;
    auto identity = moduleIdentity(*e.image, dump_options);
    if (!identity) {
      e.error = llvm::toString(identity.takeError());
      e.image.reset();
      continue;
    }
    e.identity = std::move(*identity);
    int rank = 2; // DWARF of its own
    if (!e.image->hasDebugInfo()) {
      auto indexed =
          e.build_id.empty() ? debug_by_build_id.end() : debug_by_build_id.find(e.build_id);
      if (indexed != debug_by_build_id.end()) {
        separate_debug[i] = indexed->second;
        separate_how[i] = "its build-id, in the release";
      } else {
        SearchPaths paths;
        paths.debug_dirs = dump_options.debug_dirs;
        paths.debuginfod = false;
        Diagnostics ignored;
        DebugFileLocator locator(e.file->path, paths);
        if (auto found = locator.findDebugFile(*e.image, e.build_id, ignored)) {
          separate_debug[i] = found->path;
          separate_how[i] = found->how;
        }
      }
      rank = separate_debug[i].empty() ? 0 : 1;
    }
    offer(i, rank);
  }

  // 3. This shard's entries.
  for (size_t i = 0; i < examined.size(); ++i) {
    Examined& e = examined[i];
    if ((e.image || e.windows || e.macho) && e.debug_file)
      continue;
    if (shardOf(e.key(), plan_options.shard.count) != plan_options.shard.index) {
      ++plan.other_shards;
      continue;
    }
    ManifestEntry entry;
    entry.path = e.file->path;
    entry.key = e.key();
    if (!e.image && !e.windows && !e.macho) {
      entry.status = EntryStatus::Failed;
      entry.error = e.error;
      plan.entries.push_back(std::move(entry));
      continue;
    }
    entry.module = e.identity.name;
    entry.cpu = e.identity.cpu;
    entry.debug_id = e.identity.debug_id;
    entry.code_id = e.identity.code_id;
    if (e.macho)
      entry.arch = e.macho->arch;
    entry.sym =
        moduleRelativePath(entry.module, entry.debug_id, e.identity.code_file, entry.code_id);
    const ModuleChoice& choice = chosen.at(moduleKey(e.identity));
    if (choice.examined != i) {
      entry.status = EntryStatus::Duplicate;
      entry.duplicate_of = examined[choice.examined].file->path;
      plan.entries.push_back(std::move(entry));
      continue;
    }
    if (!plan_options.force && llvm::sys::fs::exists(plan_options.store + "/" + entry.sym) &&
        (!dump_options.keep_binaries ||
         binariesKept(e, separate_debug[i], dump_options, plan_options.store, entry))) {
      entry.status = EntryStatus::Exists;
      plan.entries.push_back(std::move(entry));
      continue;
    }
    PlannedDump dump;
    dump.entry = plan.entries.size();
    if (e.macho) {
      dump.arch = e.macho->arch;
      dump.debug_file = e.macho_dsym;
      if (!dump.debug_file.empty())
        entry.debug_file_how = "its UUID, in the release";
      dump.cost = std::max<uint64_t>(
          dump.debug_file.empty() ? e.macho->dwarf_bytes : e.macho_dsym_bytes, 1);
      plan.bytes_to_read += e.file->size;
      plan.dumps.push_back(std::move(dump));
      plan.entries.push_back(std::move(entry));
      continue;
    }
    if (e.windows) {
      // What a PDB dump holds in memory grows with the PDB.
      dump.debug_file = e.windows_pdb;
      if (!dump.debug_file.empty())
        entry.debug_file_how = "its GUID and age, in the release";
      uint64_t pdb_size = 0;
      llvm::sys::fs::file_size(e.windows_pdb.empty() ? e.file->path : e.windows_pdb, pdb_size);
      dump.cost = std::max<uint64_t>(pdb_size, 1);
      plan.bytes_to_read += e.file->size;
      plan.dumps.push_back(std::move(dump));
      plan.entries.push_back(std::move(entry));
      continue;
    }
    dump.debug_file = separate_debug[i];
    uint64_t debug_bytes = dwarfBytes(*e.image);
    if (!dump.debug_file.empty()) {
      entry.debug_file_how = separate_how[i];
      if (auto debug = ElfImage::open(dump.debug_file))
        debug_bytes = dwarfBytes(**debug);
      else
        llvm::consumeError(debug.takeError());
    }
    dump.cost = std::max<uint64_t>(debug_bytes, 1);
    plan.bytes_to_read += e.file->size;
    plan.dumps.push_back(std::move(dump));
    plan.entries.push_back(std::move(entry));
  }
  return plan;
}

} // namespace dumpsyms
