#include "dump/pdb/dia_local_names.h"

#include "common/limits/input_limits.h"

#include <llvm/DebugInfo/CodeView/LazyRandomTypeCollection.h>
#include <llvm/DebugInfo/CodeView/TypeDeserializer.h>
#include <llvm/DebugInfo/CodeView/TypeRecord.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/DebugInfo/PDB/Native/RawConstants.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::codeview;

namespace {

template <typename Record> std::optional<Record> deserialize(const CVType& type) {
  Record record(static_cast<TypeRecordKind>(type.kind()));
  if (Error error = TypeDeserializer::deserializeAs<Record>(const_cast<CVType&>(type), record)) {
    consumeError(std::move(error));
    return std::nullopt;
  }
  return record;
}

std::optional<std::string> simpleTypeName(SimpleTypeKind kind) {
  switch (kind) {
  case SimpleTypeKind::Void:
    return "void";
  case SimpleTypeKind::HResult:
    return "HRESULT";
  case SimpleTypeKind::SignedCharacter:
  case SimpleTypeKind::NarrowCharacter:
    return "char";
  case SimpleTypeKind::UnsignedCharacter:
    return "unsigned char";
  case SimpleTypeKind::WideCharacter:
    return "wchar_t";
  case SimpleTypeKind::Character8:
    return "char8_t";
  case SimpleTypeKind::Character16:
    return "char16_t";
  case SimpleTypeKind::Character32:
    return "char32_t";
  case SimpleTypeKind::SByte:
    return "signed char";
  case SimpleTypeKind::Byte:
    return "unsigned char";
  case SimpleTypeKind::Int16Short:
  case SimpleTypeKind::Int16:
    return "short";
  case SimpleTypeKind::UInt16Short:
  case SimpleTypeKind::UInt16:
    return "unsigned short";
  case SimpleTypeKind::Int32Long:
    return "long";
  case SimpleTypeKind::UInt32Long:
    return "unsigned long";
  case SimpleTypeKind::Int32:
    return "int";
  case SimpleTypeKind::UInt32:
    return "unsigned int";
  case SimpleTypeKind::Int64Quad:
  case SimpleTypeKind::Int64:
    return "__int64";
  case SimpleTypeKind::UInt64Quad:
  case SimpleTypeKind::UInt64:
    return "unsigned __int64";
  case SimpleTypeKind::Boolean8:
    return "bool";
  case SimpleTypeKind::Float32:
    return "float";
  case SimpleTypeKind::Float64:
    return "double";
  case SimpleTypeKind::Float80:
    return "long double";
  default:
    return std::nullopt;
  }
}

std::string modifierPrefix(ModifierOptions options) {
  std::string out;
  if ((options & ModifierOptions::Const) != ModifierOptions::None)
    out += "const ";
  if ((options & ModifierOptions::Volatile) != ModifierOptions::None)
    out += "volatile ";
  return out;
}

} // namespace

DiaLocalNames::DiaLocalNames(pdb::PDBFile& file) : file_(file) {}

std::optional<std::string> DiaLocalNames::typeName(TypeIndex index, int depth) {
  if (depth > limits::kMaxDiaTypeDepth)
    return std::nullopt;
  if (index.isSimple()) {
    if (index.isNoneType())
      return "...";
    auto base = simpleTypeName(index.getSimpleKind());
    if (!base)
      return std::nullopt;
    return index.getSimpleMode() == SimpleTypeMode::Direct ? *base : *base + " *";
  }
  std::optional<CVType> type = types_->types().tryGetType(index);
  if (!type)
    return std::nullopt;
  switch (type->kind()) {
  case LF_POINTER: {
    auto pointer = deserialize<PointerRecord>(*type);
    if (!pointer)
      return std::nullopt;
    auto pointee = typeName(pointer->getReferentType(), depth + 1);
    if (!pointee)
      return std::nullopt;
    std::string symbol = pointer->getMode() == PointerMode::LValueReference   ? " &"
                         : pointer->getMode() == PointerMode::RValueReference ? " &&"
                                                                              : " *";
    if (pointer->isConst())
      symbol += " const";
    return *pointee + symbol;
  }
  case LF_MODIFIER: {
    auto modifier = deserialize<ModifierRecord>(*type);
    if (!modifier)
      return std::nullopt;
    auto modified = typeName(modifier->getModifiedType(), depth + 1);
    if (!modified)
      return std::nullopt;
    return modifierPrefix(modifier->getModifiers()) + *modified;
  }
  case LF_CLASS:
  case LF_STRUCTURE:
  case LF_INTERFACE: {
    auto record = deserialize<ClassRecord>(*type);
    if (!record)
      return std::nullopt;
    const char* keyword = type->kind() == LF_CLASS       ? "class "
                          : type->kind() == LF_STRUCTURE ? "struct "
                                                         : "interface ";
    return keyword + record->getName().str();
  }
  case LF_UNION: {
    auto record = deserialize<UnionRecord>(*type);
    return record ? std::optional("union " + record->getName().str()) : std::nullopt;
  }
  case LF_ENUM: {
    auto record = deserialize<EnumRecord>(*type);
    return record ? std::optional("enum " + record->getName().str()) : std::nullopt;
  }
  case LF_PROCEDURE:
  case LF_MFUNCTION:
    return "";
  default:
    return std::nullopt;
  }
}

std::optional<std::string> DiaLocalNames::argumentList(TypeIndex index, int depth) {
  if (index.isSimple())
    return index.isNoneType() ? std::optional<std::string>("") : std::nullopt;
  std::optional<CVType> type = types_->types().tryGetType(index);
  if (!type || type->kind() != LF_ARGLIST)
    return std::nullopt;
  auto list = deserialize<ArgListRecord>(*type);
  if (!list)
    return std::nullopt;
  std::string out;
  for (TypeIndex argument : list->getIndices()) {
    auto name = typeName(argument, depth + 1);
    if (!name)
      return std::nullopt;
    if (!out.empty())
      out += ", ";
    out += *name;
  }
  return out;
}

std::optional<std::string> DiaLocalNames::name(StringRef name, TypeIndex type_index) {
  if (!tried_) {
    tried_ = true;
    std::string problem; // (the inlinee names report an unreadable TPI stream)
    types_ = TypeStream::open(file_, pdb::StreamTPI, problem);
  }
  // A PDB without type information (no TPI stream, or one with no
  // records): DIA has no type to build "static RET NAME(PARAMS)" from, and
  // Breakpad writes the procedure's own name (its caller's fallback).
  if (!types_ || types_->recordCount() == 0)
    return std::nullopt;
  // Funclets (exception filters, __finally blocks) in a PDB with types have
  // none of their own: DIA writes an empty return type and no parameters
  // (Breakpad's MSVC references: "static  _freefls$fin$0()").
  if (type_index.isNoneType())
    return "static  " + name.str() + "()";
  if (type_index.isSimple())
    return std::nullopt;
  std::optional<CVType> type = types_->types().tryGetType(type_index);
  if (!type)
    return std::nullopt;
  TypeIndex return_type, arguments;
  if (type->kind() == LF_PROCEDURE) {
    auto procedure = deserialize<ProcedureRecord>(*type);
    if (!procedure)
      return std::nullopt;
    return_type = procedure->getReturnType();
    arguments = procedure->getArgumentList();
  } else if (type->kind() == LF_MFUNCTION) {
    auto method = deserialize<MemberFunctionRecord>(*type);
    if (!method)
      return std::nullopt;
    return_type = method->getReturnType();
    arguments = method->getArgumentList();
  } else {
    return std::nullopt;
  }
  auto returned = typeName(return_type, 0);
  auto parameters = argumentList(arguments, 0);
  if (!returned || !parameters)
    return std::nullopt;
  return "static " + *returned + " " + name.str() + "(" + *parameters + ")";
}

} // namespace dumpsyms
