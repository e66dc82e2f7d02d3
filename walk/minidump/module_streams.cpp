// ModuleList (identities from CodeView records), UnloadedModuleList, and
// each module's extent from the maps.
#include "common/limits/input_limits.h"
#include "walk/minidump/module_identity.h"
#include "walk/minidump/stream_reader.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms::minidump_streams {

void StreamReader::readModules() {
  const MinidumpStream* stream = directory_.first(kModuleList);
  if (!stream)
    return;
  uint64_t first = 0;
  uint64_t count =
      listEntries(*stream, sizeof(md::Module), limits::kMaxMinidumpModules, "module list", first);
  size_t unnamed = 0;
  for (uint64_t i = 0; i < count; ++i) {
    md::Module module;
    std::memcpy(static_cast<void*>(&module), stream->bytes.data() + first + i * sizeof(md::Module),
                sizeof module);
    SnapshotModule out;
    out.base = module.BaseOfImage;
    out.size = module.SizeOfImage;
    if (out.base + out.size < out.base) {
      warn("a module at 0x" + llvm::utohexstr(out.base) +
           " wraps around the address space; left out");
      continue;
    }
    if (auto name = bytes_.string(module.ModuleNameRVA))
      out.code_file = *name;
    else
      ++unnamed;
    std::optional<llvm::StringRef> record;
    if (module.CvRecord.DataSize > limits::kMaxCodeViewRecordBytes)
      warn(out.code_file + ": " +
           limits::overLimit("its CodeView record", limits::kMaxCodeViewRecordBytes, "bytes"));
    else
      record = bytes_.at(module.CvRecord.RVA, module.CvRecord.DataSize);
    ModuleIdentity identity = identityFromCodeView(record.value_or(""), out.code_file);
    out.debug_id = identity.debug_id;
    out.debug_file = identity.debug_file;
    out.build_id = identity.build_id;
    out.codeview = identity.kind;
    if (!out.build_id.empty()) {
      out.code_id = CodeId(out.build_id.hex());
    } else {
      out.code_id = CodeId::fromMinidumpPeModule(module.TimeDateStamp, module.SizeOfImage);
    }
    out.version =
        fixedFileVersion(module.VersionInfo.Signature, module.VersionInfo.StructVersion,
                         module.VersionInfo.FileVersionHigh, module.VersionInfo.FileVersionLow);
    if (out_.modules.empty())
      out_.main_module_base = out.base;
    out_.modules.push_back(std::move(out));
  }
  if (unnamed)
    warn(plural(unnamed, "module's name", "modules' names") + " cannot be read");
  std::stable_sort(
      out_.modules.begin(), out_.modules.end(),
      [](const SnapshotModule& a, const SnapshotModule& b) { return a.base < b.base; });
}

void StreamReader::readUnloadedModules() {
  const MinidumpStream* stream = directory_.first(kUnloadedModuleList);
  if (!stream)
    return;
  if (stream->bytes.size() < 12) {
    warn("the UnloadedModuleList stream is too short for its header; left out");
    return;
  }
  uint32_t header_size = read32le(stream->bytes.data());
  uint32_t entry_size = read32le(stream->bytes.data() + 4);
  uint64_t count = read32le(stream->bytes.data() + 8);
  if (header_size < 12 || entry_size < 24 || header_size > stream->bytes.size()) {
    warn("the UnloadedModuleList header is damaged; left out");
    return;
  }
  uint64_t held = (stream->bytes.size() - header_size) / entry_size;
  count = std::min({count, held, limits::kMaxMinidumpModules});
  for (uint64_t i = 0; i < count; ++i) {
    const char* entry = stream->bytes.data() + header_size + i * entry_size;
    SnapshotModule out;
    out.base = read64le(entry);
    out.size = read32le(entry + 8);
    if (auto name = bytes_.string(read32le(entry + 20)))
      out.code_file = *name;
    out.code_id = CodeId::fromMinidumpPeModule(read32le(entry + 16), read32le(entry + 8));
    out_.unloaded_modules.push_back(std::move(out));
  }
}

void StreamReader::fixModuleExtents() {
  if (out_.mappings.empty())
    return;
  size_t widened = 0;
  for (size_t i = 0; i < out_.modules.size(); ++i) {
    SnapshotModule& module = out_.modules[i];
    if (module.code_file.empty())
      continue;
    uint64_t next = i + 1 < out_.modules.size() ? out_.modules[i + 1].base : UINT64_MAX;
    uint64_t end = module.end();
    // The maps name the file by the path the kernel resolved (a library
    // loaded through a symlink has its target's): the mapping at the
    // module's base says which.
    std::string path = module.code_file;
    for (const MemoryMapping& mapping : out_.mappings)
      if (mapping.start == module.base && !mapping.path.empty())
        path = mapping.path;
    for (const MemoryMapping& mapping : out_.mappings)
      if (mapping.path == path && mapping.start >= module.base && mapping.start < next)
        end = std::max(end, mapping.end);
    if (end > module.end()) {
      module.mapped_size = end - module.base;
      ++widened;
    }
  }
  if (widened)
    warn(plural(widened, "module's size covers", "modules' sizes cover") +
         " less than the file's mappings (lldb writes the first segment's): frames in "
         "the rest are placed by the ranges LinuxMaps gives");
}

} // namespace dumpsyms::minidump_streams
