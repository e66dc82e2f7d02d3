#include "dump/pdb/cross_module_ids.h"

#include "dump/pdb/pdb_file.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/DebugInfo/CodeView/DebugCrossExSubsection.h>
#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleDescriptor.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleList.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/ModuleDebugStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBStringTable.h>
#include <llvm/Support/BinaryStreamReader.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::codeview;

std::optional<CrossModuleImports> readCrossModuleImports(PdbFile& pdb, BinaryStreamRef data,
                                                         std::string& problem) {
  auto strings = pdb.raw().getStringTable();
  if (!strings) {
    problem =
        "cross-module imports without a /names string table: " + toString(strings.takeError());
    return std::nullopt;
  }
  // Read here rather than with LLVM 19's DebugCrossModuleImportsSubsectionRef,
  // whose records never say their length: it reads the first module's
  // imports only (and llvm-pdbutil --xmi shows only those).
  CrossModuleImports imports;
  BinaryStreamReader reader(data);
  while (reader.bytesRemaining() > 0) {
    uint32_t name_offset = 0, count = 0;
    if (Error error = reader.readInteger(name_offset)) {
      consumeError(std::move(error));
      problem = "cross-module imports subsection ends inside a record";
      return imports; // (what was read stays)
    }
    if (Error error = reader.readInteger(count)) {
      consumeError(std::move(error));
      problem = "cross-module imports subsection ends inside a record";
      return imports;
    }
    if (count > reader.bytesRemaining() / 4) {
      problem = fmt::format("cross-module imports from module {} list {} ids, more than the "
                            "subsection holds",
                            imports.modules.size(), count);
      return imports;
    }
    CrossModuleImports::FromModule& from = imports.modules.emplace_back();
    if (auto name = strings->getStringForID(name_offset))
      from.name = name->str();
    else
      consumeError(name.takeError()); // (an unnamed module resolves nothing)
    from.ids.resize(count);
    for (uint32_t& id : from.ids)
      cantFail(reader.readInteger(id));
  }
  return imports;
}

std::optional<uint32_t> CrossModuleExports::resolve(uint32_t id, const CrossModuleImports& imports,
                                                    std::string& problem) {
  uint32_t module = (id >> 20) & 0x7ff, index = id & 0xfffff;
  if (module >= imports.modules.size()) {
    problem = fmt::format("cross-module id {:#x} names import module {} of {}", id, module,
                          imports.modules.size());
    return std::nullopt;
  }
  const CrossModuleImports::FromModule& from = imports.modules[module];
  if (index >= from.ids.size()) {
    problem = fmt::format("cross-module id {:#x} names import {} of {} from {}", id, index,
                          from.ids.size(), from.name);
    return std::nullopt;
  }
  const std::unordered_map<uint32_t, uint32_t>* exports = exportsOf(from.name, problem);
  if (!exports)
    return std::nullopt;
  auto found = exports->find(from.ids[index]);
  if (found == exports->end()) {
    problem = fmt::format("cross-module id {:#x}: {} exports no id {:#x}", id, from.name,
                          from.ids[index]);
    return std::nullopt;
  }
  return found->second;
}

const std::unordered_map<uint32_t, uint32_t>* CrossModuleExports::exportsOf(const std::string& name,
                                                                            std::string& problem) {
  auto dbi = pdb_.raw().getPDBDbiStream();
  if (!dbi) {
    problem = "no DBI stream: " + toString(dbi.takeError());
    return nullptr;
  }
  if (!indexed_) {
    indexed_ = true;
    // The module's name, else its object (library) file's: the first
    // module of a name wins, as the modules are in link order.
    for (uint32_t i = 0; i < pdb_.moduleCount(); ++i) {
      pdb::DbiModuleDescriptor descriptor = dbi->modules().getModuleDescriptor(i);
      module_by_name_.emplace(descriptor.getModuleName().lower(), i);
    }
    for (uint32_t i = 0; i < pdb_.moduleCount(); ++i)
      module_by_name_.emplace(dbi->modules().getModuleDescriptor(i).getObjFileName().lower(), i);
  }
  auto module = module_by_name_.find(StringRef(name).lower());
  if (module == module_by_name_.end()) {
    problem = "cross-module imports from " + name + ", which no module of the PDB is";
    return nullptr;
  }
  auto cached = exports_.find(module->second);
  if (cached != exports_.end())
    return &cached->second;
  std::unordered_map<uint32_t, uint32_t>& table = exports_[module->second];
  pdb::DbiModuleDescriptor descriptor = dbi->modules().getModuleDescriptor(module->second);
  uint16_t stream_index = descriptor.getModuleStreamIndex();
  if (stream_index == 0xffff)
    return &table; // a module without symbols exports nothing
  auto raw_stream = pdb_.raw().safelyCreateIndexedStream(stream_index);
  if (!raw_stream) {
    consumeError(raw_stream.takeError());
    return &table;
  }
  pdb::ModuleDebugStreamRef stream(descriptor, std::move(*raw_stream));
  if (Error error = stream.reload()) {
    consumeError(std::move(error)); // (its own reading reports it)
    return &table;
  }
  for (const DebugSubsectionRecord& subsection : stream.subsections()) {
    if (subsection.kind() != DebugSubsectionKind::CrossScopeExports)
      continue;
    DebugCrossModuleExportsSubsectionRef exports;
    if (Error error = exports.initialize(subsection.getRecordData())) {
      problem =
          "corrupt cross-module exports subsection in " + name + ": " + toString(std::move(error));
      continue;
    }
    for (const CrossModuleExport& entry : exports)
      table.emplace(entry.Local, entry.Global);
  }
  return &table;
}

} // namespace dumpsyms
