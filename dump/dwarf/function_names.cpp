#include "dump/dwarf/function_names.h"

#include "common/limits/input_limits.h"
#include "dump/object/demangle.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// How a language's DW_AT_name relates to the function's whole name.
enum class TreeNames {
  // Not whole: C++ and most others (no parameters, scopes to add); the
  // linkage name comes first.
  Partial,
  // The whole name as it is: C (no overloading), Go (the compiler writes
  // `main.(*ring).push` there and no linkage name).
  Plain,
  // Whole once qualified by the enclosing module or procedure, and better
  // than the linkage name: Fortran's `__grid_mod_MOD_grid_step` is
  // `grid_mod::grid_step`, its `outer_` is `outer`.
  Qualified
};

TreeNames treeNames(DWARFDie die) {
  std::optional<uint64_t> language = unitLanguage(die);
  if (!language)
    return TreeNames::Partial;
  switch (*language) {
  case dwarf::DW_LANG_C:
  case dwarf::DW_LANG_C89:
  case dwarf::DW_LANG_C99:
  case dwarf::DW_LANG_C11:
  case dwarf::DW_LANG_C17:
  case dwarf::DW_LANG_Go:
    return TreeNames::Plain;
  case dwarf::DW_LANG_Fortran77:
  case dwarf::DW_LANG_Fortran90:
  case dwarf::DW_LANG_Fortran95:
  case dwarf::DW_LANG_Fortran03:
  case dwarf::DW_LANG_Fortran08:
  case dwarf::DW_LANG_Fortran18:
    return TreeNames::Qualified;
  default:
    return TreeNames::Partial;
  }
}

} // namespace

// The DIEs that describe one function: the DIE itself, then what it points
// at through DW_AT_abstract_origin and DW_AT_specification, breadth first.
std::vector<DWARFDie> FunctionNamer::declarationChain(DWARFDie die) const {
  std::vector<DWARFDie> chain{die};
  for (size_t i = 0; i < chain.size() && chain.size() < limits::kMaxDeclarationChain; ++i) {
    for (dwarf::Attribute attribute : {dwarf::DW_AT_abstract_origin, dwarf::DW_AT_specification}) {
      DWARFDie target = reader_.referenced(chain[i], attribute);
      if (target)
        chain.push_back(target);
    }
  }
  return chain;
}

const FunctionNamer::Name& FunctionNamer::lookup(DWARFDie die) {
  const void* key = die.getDebugInfoEntry();
  auto found = cache_.find(key);
  if (found != cache_.end())
    return found->second;
  // Naming a local class's method names the function around it first
  // (qualifiedName), which may hold another: the recursion is bounded, and
  // a reference cycle in corrupt DWARF ends at the bound too.
  if (naming_depth_ >= limits::kMaxScopeDepth) {
    scope_limit_hit_ = true;
    static const Name kUnnamed;
    return kUnnamed;
  }
  ++naming_depth_;
  Name result = computeName(die);
  --naming_depth_;
  return cache_.emplace(key, std::move(result)).first->second;
}

std::string FunctionNamer::inlineOriginName(DWARFDie die) {
  const Name& name = lookup(die);
  if (name.complete)
    return name.text;
  for (DWARFDie link : declarationChain(die))
    if (const char* plain = stringAttribute(link, {dwarf::DW_AT_name}))
      return plain;
  return name.text;
}

FunctionNamer::Name FunctionNamer::computeName(DWARFDie die) {
  std::vector<DWARFDie> chain = declarationChain(die);
  TreeNames tree = treeNames(die);

  if (tree == TreeNames::Qualified)
    for (DWARFDie link : chain)
      if (stringAttribute(link, {dwarf::DW_AT_name}))
        return {qualifiedName(link), true};
  // The linkage name, in C and C++ alike: in C it is an asm label (glibc's
  // `open` is `open64`), the name the code really has. Demangled as the
  // symbol table's names are (dump/object/demangle), so that a function has
  // one name whichever of the two names it.
  for (DWARFDie link : chain)
    if (const char* linkage =
            stringAttribute(link, {dwarf::DW_AT_linkage_name, dwarf::DW_AT_MIPS_linkage_name}))
      return {demangle(linkage), true};
  for (DWARFDie link : chain) {
    if (const char* plain = stringAttribute(link, {dwarf::DW_AT_name}))
      return tree == TreeNames::Plain ? Name{plain, true} : Name{qualifiedName(link), false};
  }
  for (DWARFDie link : chain)
    if (const char* linkage =
            stringAttribute(link, {dwarf::DW_AT_linkage_name, dwarf::DW_AT_MIPS_linkage_name}))
      return {linkage, false};
  return {"", false};
}

// `named` has a DW_AT_name; prefix it with the names of the namespaces,
// classes, structures and unions that enclose it.
std::string FunctionNamer::qualifiedName(DWARFDie named) {
  std::string result = stringAttribute(named, {dwarf::DW_AT_name});
  uint32_t depth = 0;
  for (DWARFDie scope = named.getParent(); scope; scope = scope.getParent()) {
    if (++depth > limits::kMaxScopeDepth) {
      scope_limit_hit_ = true;
      return result;
    }
    const char* scope_name = stringAttribute(scope, {dwarf::DW_AT_name});
    switch (scope.getTag()) {
    case dwarf::DW_TAG_namespace:
      result = std::string(scope_name ? scope_name : "(anonymous namespace)") + "::" + result;
      break;
    case dwarf::DW_TAG_class_type:
    case dwarf::DW_TAG_structure_type:
    case dwarf::DW_TAG_union_type:
    case dwarf::DW_TAG_interface_type:
      if (!scope_name) {
        const char* kind = scope.getTag() == dwarf::DW_TAG_union_type   ? "(anonymous union)"
                           : scope.getTag() == dwarf::DW_TAG_class_type ? "(anonymous class)"
                                                                        : "(anonymous struct)";
        result = std::string(kind) + "::" + result;
      } else {
        result = std::string(scope_name) + "::" + result;
      }
      break;
    case dwarf::DW_TAG_module: // Fortran's modules (and D's, Clang's)
      if (!scope_name)
        return result;
      result = std::string(scope_name) + "::" + result;
      break;
    case dwarf::DW_TAG_subprogram:
      // A local class's method (or Fortran's internal procedure): qualify
      // with the enclosing function's name.
      return name(scope) + "::" + result;
    default:
      return result;
    }
  }
  return result;
}

} // namespace dumpsyms
