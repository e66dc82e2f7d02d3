#include "dump/pdb/inlinee_names.h"

#include "dump/pdb/pdb_file.h"
#include "dump/pdb/windows_names.h"

#include <llvm/DebugInfo/CodeView/LazyRandomTypeCollection.h>
#include <llvm/DebugInfo/CodeView/TypeDeserializer.h>
#include <llvm/DebugInfo/CodeView/TypeRecord.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/DebugInfo/PDB/Native/RawConstants.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::codeview;

InlineeNames::InlineeNames(PdbFile& pdb) : file_(pdb.raw()), cross_module_(pdb) {}

namespace {

template <typename Record>
std::optional<Record> read(LazyRandomTypeCollection& types, TypeIndex index, TypeLeafKind kind) {
  if (index.isNoneType() || index.isSimple())
    return std::nullopt;
  // (contains() answers only for records already parsed; tryGetType parses
  // up to the index and reports an index past the end.)
  std::optional<CVType> type = types.tryGetType(index);
  if (!type || type->kind() != kind)
    return std::nullopt;
  Record record(static_cast<TypeRecordKind>(kind));
  if (Error error = TypeDeserializer::deserializeAs<Record>(*type, record)) {
    consumeError(std::move(error));
    return std::nullopt;
  }
  return record;
}

} // namespace

namespace {

// The name of the class, structure, union or enumeration `index` is. Read
// here rather than with LazyRandomTypeCollection::getTypeName, which
// recurses through pointer and modifier records and never returns from a
// cycle of them in a corrupt type stream (docs/FUZZING.md).
std::string classTypeName(LazyRandomTypeCollection& types, TypeIndex index) {
  if (auto record = read<ClassRecord>(types, index, LF_CLASS))
    return record->getName().str();
  if (auto record = read<ClassRecord>(types, index, LF_STRUCTURE))
    return record->getName().str();
  if (auto record = read<ClassRecord>(types, index, LF_INTERFACE))
    return record->getName().str();
  if (auto record = read<UnionRecord>(types, index, LF_UNION))
    return record->getName().str();
  if (auto record = read<EnumRecord>(types, index, LF_ENUM))
    return record->getName().str();
  return "";
}

} // namespace

TypeStream* InlineeNames::stream(uint32_t index, std::unique_ptr<TypeStream>& slot, bool& tried,
                                 const char* what) {
  if (!tried) {
    tried = true;
    std::string problem;
    slot = TypeStream::open(file_, index, problem);
    if (!slot)
      problems_.push_back(std::string("the ") + what + " stream is not read: " + problem);
  }
  return slot.get();
}

std::string InlineeNames::name(TypeIndex inlinee, const CrossModuleImports& imports) {
  if (!isCrossModuleId(inlinee.getIndex()))
    return globalName(inlinee);
  std::string problem;
  std::optional<uint32_t> global = cross_module_.resolve(inlinee.getIndex(), imports, problem);
  if (!global) {
    if (problems_seen_.insert(problem).second)
      problems_.push_back(problem);
    return "";
  }
  return globalName(TypeIndex(*global));
}

std::string InlineeNames::globalName(TypeIndex inlinee) {
  auto cached = cache_.find(inlinee.getIndex());
  if (cached != cache_.end())
    return cached->second;
  std::string result;
  TypeStream* ipi = stream(pdb::StreamIPI, ids_, tried_ids_, "IPI (ids)");
  if (!ipi)
    return result;
  LazyRandomTypeCollection& ids = ipi->types();
  if (auto function = read<FuncIdRecord>(ids, inlinee, LF_FUNC_ID)) {
    if (auto scope = read<StringIdRecord>(ids, function->getParentScope(), LF_STRING_ID))
      result = scope->getString().str() + "::";
    result += function->getName().str();
  } else if (auto member = read<MemberFuncIdRecord>(ids, inlinee, LF_MFUNC_ID)) {
    TypeStream* tpi = stream(pdb::StreamTPI, types_, tried_types_, "TPI (types)");
    std::string scope = tpi ? classTypeName(tpi->types(), member->getClassType()) : "";
    if (!scope.empty())
      result = scope + "::";
    result += member->getName().str();
  }
  // (MSVC's anonymous namespaces, `?A0x1234abcd`, as DIA and undname say them)
  result = spellAnonymousNamespaces(std::move(result));
  cache_.emplace(inlinee.getIndex(), result);
  return result;
}

} // namespace dumpsyms
