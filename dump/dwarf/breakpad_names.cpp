#include "dump/dwarf/breakpad_names.h"

#include "common/limits/input_limits.h"
#include "dump/dwarf/breakpad_language.h"

#include <llvm/BinaryFormat/Dwarf.h>

namespace dumpsyms {

using namespace llvm;

namespace {

// Scopes nest and references chain only a few levels deep in real DWARF;
// the bound guards against cycles and runaway recursion on corrupt input.
constexpr int kMaxDepth = limits::kMaxBreakpadNameDepth;

bool isDeclaration(DWARFDie die) {
  return dwarf::toUnsigned(die.find(dwarf::DW_AT_declaration), 0) != 0;
}

} // namespace

std::string BreakpadNamer::functionName(DWARFDie subprogram) {
  if (DWARFDie target = forwardReference(subprogram, reader_))
    if (!forward_ || forward_->renames(target, subprogram))
      if (const std::string& name = functionNameAt(target, 1); !name.empty())
        return name;
  return functionNameAt(subprogram, 0);
}

std::string BreakpadNamer::inlineOriginName(DWARFDie inlined_call) {
  DWARFDie origin = reader_.referenced(inlined_call, dwarf::DW_AT_abstract_origin);
  return origin ? functionNameAt(origin, 0) : std::string();
}

// Breakpad's FuncHandler name: the qualified name, else (a concrete copy of
// an inline function, which has neither name) the abstract origin's name.
const std::string& BreakpadNamer::functionNameAt(DWARFDie die, int depth) {
  const void* key = die.getDebugInfoEntry();
  auto found = function_names_.find(key);
  if (found != function_names_.end())
    return found->second;
  std::string name;
  if (depth < kMaxDepth) {
    name = qualified(die, depth + 1).name;
    if (name.empty())
      if (DWARFDie origin = reader_.referenced(die, dwarf::DW_AT_abstract_origin))
        name = functionNameAt(origin, depth + 1);
  }
  return function_names_.emplace(key, std::move(name)).first->second;
}

const BreakpadNamer::Qualified& BreakpadNamer::qualified(DWARFDie die, int depth) {
  const void* key = die.getDebugInfoEntry();
  auto found = qualified_.find(key);
  if (found != qualified_.end())
    return found->second;
  Qualified result = depth < kMaxDepth ? computeQualified(die, depth) : Qualified{};
  return qualified_.emplace(key, std::move(result)).first->second;
}

// Breakpad's GenericDIEHandler::ComputeQualifiedName, for functions and for
// the namespaces and classes that enclose them.
BreakpadNamer::Qualified BreakpadNamer::computeQualified(DWARFDie die, int depth) {
  BreakpadLanguage language = BreakpadLanguage::forUnit(unitLanguage(die));
  Qualified out;
  bool declaration = isDeclaration(die);

  // A linkage name that demangles wins: it has the parameters.
  std::string raw;
  if (const char* linkage =
          reader_.string(die, {dwarf::DW_AT_linkage_name, dwarf::DW_AT_MIPS_linkage_name})) {
    if (std::optional<std::string> name = language.qualifiedFromLinkageName(linkage)) {
      out.name = std::move(*name);
      if (declaration)
        out.specification = {true, out.name, "", ""};
      return out;
    }
    raw = linkage;
  }

  // Then the declaration's full name. Breakpad keeps a full name for
  // DW_AT_specification only from a DIE marked as a declaration.
  const Specification* specification = nullptr;
  if (DWARFDie target = reader_.referenced(die, dwarf::DW_AT_specification)) {
    const Qualified& declared = qualified(target, depth + 1);
    if (declared.specification.exists)
      specification = &declared.specification;
  }
  if (specification && !specification->qualified.empty()) {
    out.name = specification->qualified;
    if (declaration)
      out.specification = {true, out.name, "", ""};
    return out;
  }

  // Else the short name (own, the declaration's, or a linkage name that
  // did not demangle) inside the enclosing scope (the declaration's, or
  // the DIE's own).
  std::string unqualified;
  if (const char* name = reader_.string(die, {dwarf::DW_AT_name}))
    unqualified = name;
  else if (specification)
    unqualified = specification->unqualified;
  else
    unqualified = raw;
  if (unqualified.empty())
    return out;
  std::string enclosing = specification ? specification->enclosing : enclosingName(die, depth);
  out.name = language.qualify(enclosing, unqualified);
  out.specification = {true, "", std::move(enclosing), std::move(unqualified)};
  return out;
}

// The name of the scope a DIE sits in, as Breakpad's DIE handlers pass it
// down: a namespace, class, structure or union by its qualified name (an
// anonymous namespace is "", which drops the scopes around it too), a
// function by its FUNC name (for local classes), the unit as "".
std::string BreakpadNamer::enclosingName(DWARFDie die, int depth) {
  for (DWARFDie scope = die.getParent(); scope; scope = scope.getParent()) {
    if (depth >= kMaxDepth)
      return "";
    switch (scope.getTag()) {
    case dwarf::DW_TAG_namespace:
    case dwarf::DW_TAG_class_type:
    case dwarf::DW_TAG_structure_type:
    case dwarf::DW_TAG_union_type:
    case dwarf::DW_TAG_module:
      return qualified(scope, depth + 1).name;
    case dwarf::DW_TAG_subprogram:
      return functionNameAt(scope, depth + 1);
    case dwarf::DW_TAG_compile_unit:
    case dwarf::DW_TAG_partial_unit:
    case dwarf::DW_TAG_type_unit:
    case dwarf::DW_TAG_skeleton_unit:
      return "";
    default:
      // Lexical blocks and the like, which Breakpad never descends into:
      // transparent.
      ++depth;
      break;
    }
  }
  return "";
}

} // namespace dumpsyms
