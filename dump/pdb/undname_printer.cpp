#include "dump/pdb/undname_printer.h"

#include "common/limits/input_limits.h"

#include <llvm/Demangle/MicrosoftDemangle.h>
#include <llvm/Demangle/MicrosoftDemangleNodes.h>

namespace dumpsyms {

using namespace llvm::ms_demangle;

namespace {

// For nodes this printer does not spell itself (string literals, RTTI
// descriptors, template arguments naming symbols): LLVM's spelling with
// the same parts left out.
constexpr OutputFlags kFallbackFlags =
    OutputFlags(OF_NoCallingConvention | OF_NoTagSpecifier | OF_NoAccessSpecifier |
                OF_NoMemberType | OF_NoReturnType | OF_NoVariableType);

const char* primitiveName(PrimitiveKind kind) {
  switch (kind) {
  case PrimitiveKind::Void:
    return "void";
  case PrimitiveKind::Bool:
    return "bool";
  case PrimitiveKind::Char:
    return "char";
  case PrimitiveKind::Schar:
    return "signed char";
  case PrimitiveKind::Uchar:
    return "unsigned char";
  case PrimitiveKind::Char8:
    return "char8_t";
  case PrimitiveKind::Char16:
    return "char16_t";
  case PrimitiveKind::Char32:
    return "char32_t";
  case PrimitiveKind::Short:
    return "short";
  case PrimitiveKind::Ushort:
    return "unsigned short";
  case PrimitiveKind::Int:
    return "int";
  case PrimitiveKind::Uint:
    return "unsigned int";
  case PrimitiveKind::Long:
    return "long";
  case PrimitiveKind::Ulong:
    return "unsigned long";
  case PrimitiveKind::Int64:
    return "__int64";
  case PrimitiveKind::Uint64:
    return "unsigned __int64";
  case PrimitiveKind::Wchar:
    return "wchar_t";
  case PrimitiveKind::Float:
    return "float";
  case PrimitiveKind::Double:
    return "double";
  case PrimitiveKind::Ldouble:
    return "long double";
  case PrimitiveKind::Nullptr:
    return "std::nullptr_t";
  }
  return "";
}

// Operators and the compiler's special members, in undname's words (LLVM
// abbreviates several: "`scalar deleting dtor'").
const char* intrinsicName(IntrinsicFunctionKind kind) {
  using K = IntrinsicFunctionKind;
  switch (kind) {
  case K::None:
    return "";
  case K::New:
    return "operator new";
  case K::Delete:
    return "operator delete";
  case K::Assign:
    return "operator=";
  case K::RightShift:
    return "operator>>";
  case K::LeftShift:
    return "operator<<";
  case K::LogicalNot:
    return "operator!";
  case K::Equals:
    return "operator==";
  case K::NotEquals:
    return "operator!=";
  case K::ArraySubscript:
    return "operator[]";
  case K::Pointer:
    return "operator->";
  case K::Dereference:
    return "operator*";
  case K::Increment:
    return "operator++";
  case K::Decrement:
    return "operator--";
  case K::Minus:
    return "operator-";
  case K::Plus:
    return "operator+";
  case K::BitwiseAnd:
    return "operator&";
  case K::MemberPointer:
    return "operator->*";
  case K::Divide:
    return "operator/";
  case K::Modulus:
    return "operator%";
  case K::LessThan:
    return "operator<";
  case K::LessThanEqual:
    return "operator<=";
  case K::GreaterThan:
    return "operator>";
  case K::GreaterThanEqual:
    return "operator>=";
  case K::Comma:
    return "operator,";
  case K::Parens:
    return "operator()";
  case K::BitwiseNot:
    return "operator~";
  case K::BitwiseXor:
    return "operator^";
  case K::BitwiseOr:
    return "operator|";
  case K::LogicalAnd:
    return "operator&&";
  case K::LogicalOr:
    return "operator||";
  case K::TimesEqual:
    return "operator*=";
  case K::PlusEqual:
    return "operator+=";
  case K::MinusEqual:
    return "operator-=";
  case K::DivEqual:
    return "operator/=";
  case K::ModEqual:
    return "operator%=";
  case K::RshEqual:
    return "operator>>=";
  case K::LshEqual:
    return "operator<<=";
  case K::BitwiseAndEqual:
    return "operator&=";
  case K::BitwiseOrEqual:
    return "operator|=";
  case K::BitwiseXorEqual:
    return "operator^=";
  case K::VbaseDtor:
    return "`vbase destructor'";
  case K::VecDelDtor:
    return "`vector deleting destructor'";
  case K::DefaultCtorClosure:
    return "`default constructor closure'";
  case K::ScalarDelDtor:
    return "`scalar deleting destructor'";
  case K::VecCtorIter:
    return "`vector constructor iterator'";
  case K::VecDtorIter:
    return "`vector destructor iterator'";
  case K::VecVbaseCtorIter:
    return "`vector vbase constructor iterator'";
  case K::VdispMap:
    return "`virtual displacement map'";
  case K::EHVecCtorIter:
    return "`eh vector constructor iterator'";
  case K::EHVecDtorIter:
    return "`eh vector destructor iterator'";
  case K::EHVecVbaseCtorIter:
    return "`eh vector vbase constructor iterator'";
  case K::CopyCtorClosure:
    return "`copy constructor closure'";
  case K::LocalVftableCtorClosure:
    return "`local vftable constructor closure'";
  case K::ArrayNew:
    return "operator new[]";
  case K::ArrayDelete:
    return "operator delete[]";
  case K::ManVectorCtorIter:
    return "`managed vector constructor iterator'";
  case K::ManVectorDtorIter:
    return "`managed vector destructor iterator'";
  case K::EHVectorCopyCtorIter:
    return "`eh vector copy constructor iterator'";
  case K::EHVectorVbaseCopyCtorIter:
    return "`eh vector vbase copy constructor iterator'";
  case K::VectorCopyCtorIter:
    return "`vector copy constructor iterator'";
  case K::VectorVbaseCopyCtorIter:
    return "`vector vbase copy constructor iterator'";
  case K::ManVectorVbaseCopyCtorIter:
    return "`managed vector vbase copy constructor iterator'";
  case K::CoAwait:
    return "operator co_await";
  case K::Spaceship:
    return "operator<=>";
  case K::MaxIntrinsic:
    return "";
  }
  return "";
}

class Printer {
public:
  std::string symbol(const SymbolNode& node) {
    if (node.kind() != NodeKind::FunctionSymbol)
      return node.toString(kFallbackFlags);
    const auto& function = static_cast<const FunctionSymbolNode&>(node);
    const FunctionSignatureNode* signature = function.Signature;
    std::string out;
    std::string adjustor;
    if (signature && signature->kind() == NodeKind::ThunkSignature) {
      const auto& thunk = static_cast<const ThunkSignatureNode&>(*signature);
      out += "[thunk]:";
      const auto& adjust = thunk.ThisAdjust;
      if (signature->FunctionClass & FC_StaticThisAdjust)
        adjustor = "`adjustor{" + std::to_string(adjust.StaticOffset) + "}' ";
      else if (signature->FunctionClass & FC_VirtualThisAdjustEx)
        adjustor = "`vtordispex{" + std::to_string(adjust.VBPtrOffset) + "," +
                   std::to_string(adjust.VBOffsetOffset) + "," +
                   std::to_string(adjust.VtordispOffset) + "," +
                   std::to_string(adjust.StaticOffset) + "}' ";
      else if (signature->FunctionClass & FC_VirtualThisAdjust)
        adjustor = "`vtordisp{" + std::to_string(adjust.VtordispOffset) + "," +
                   std::to_string(adjust.StaticOffset) + "}' ";
    }
    out += qualifiedName(function.Name);
    out += adjustor;
    if (signature && !(signature->FunctionClass & FC_NoParameterList))
      out += parameterList(*signature);
    return out;
  }

private:
  // Counts nesting; past limits::kMaxUndnameDepth the printer stops descending and the
  // whole name is refused (`too_deep`).
  struct Depth {
    explicit Depth(Printer& printer) : printer_(printer) {
      if (++printer_.depth_ > limits::kMaxUndnameDepth)
        printer_.too_deep_ = true;
    }
    ~Depth() { --printer_.depth_; }
    explicit operator bool() const { return !printer_.too_deep_; }
    Printer& printer_;
  };

  std::string qualifiedName(const QualifiedNameNode* name) {
    if (!name || !name->Components)
      return "";
    Depth guard(*this);
    if (!guard)
      return "";
    std::string out;
    for (size_t i = 0; i < name->Components->Count; ++i) {
      if (i)
        out += "::";
      out += identifier(name->Components->Nodes[i]);
    }
    return out;
  }

  std::string identifier(const Node* node) {
    Depth guard(*this);
    if (!node || !guard)
      return "";
    switch (node->kind()) {
    case NodeKind::NamedIdentifier: {
      const auto& named = static_cast<const NamedIdentifierNode&>(*node);
      return std::string(named.Name) + templateArguments(named.TemplateParams);
    }
    case NodeKind::IntrinsicFunctionIdentifier: {
      const auto& intrinsic = static_cast<const IntrinsicFunctionIdentifierNode&>(*node);
      return intrinsicName(intrinsic.Operator) + templateArguments(intrinsic.TemplateParams);
    }
    case NodeKind::StructorIdentifier: {
      const auto& structor = static_cast<const StructorIdentifierNode&>(*node);
      return (structor.IsDestructor ? "~" : "") + identifier(structor.Class) +
             templateArguments(structor.TemplateParams);
    }
    case NodeKind::ConversionOperatorIdentifier: {
      const auto& conversion = static_cast<const ConversionOperatorIdentifierNode&>(*node);
      return "operator " + type(conversion.TargetType) +
             templateArguments(conversion.TemplateParams);
    }
    case NodeKind::LiteralOperatorIdentifier: {
      const auto& literal = static_cast<const LiteralOperatorIdentifierNode&>(*node);
      return "operator \"\"" + std::string(literal.Name) +
             templateArguments(literal.TemplateParams);
    }
    case NodeKind::DynamicStructorIdentifier: {
      const auto& structor = static_cast<const DynamicStructorIdentifierNode&>(*node);
      std::string target =
          structor.Variable ? qualifiedName(structor.Variable->Name) : qualifiedName(structor.Name);
      return std::string(structor.IsDestructor ? "`dynamic atexit destructor for '"
                                               : "`dynamic initializer for '") +
             target + "''";
    }
    default:
      return node->toString(kFallbackFlags);
    }
  }

  // "<int,std::allocator<int> >": no space after a comma, one between two
  // closing brackets.
  std::string templateArguments(const NodeArrayNode* arguments) {
    if (!arguments)
      return "";
    std::string out = "<";
    for (size_t i = 0; i < arguments->Count; ++i) {
      if (i)
        out += ",";
      out += templateArgument(arguments->Nodes[i]);
    }
    if (out.back() == '>')
      out += ' ';
    return out + ">";
  }

  std::string templateArgument(const Node* node) {
    if (!node)
      return "";
    if (isType(node->kind()))
      return type(static_cast<const TypeNode*>(node));
    if (node->kind() == NodeKind::IntegerLiteral) {
      const auto& literal = static_cast<const IntegerLiteralNode&>(*node);
      return (literal.IsNegative ? "-" : "") + std::to_string(literal.Value);
    }
    return node->toString(kFallbackFlags);
  }

  std::string parameterList(const FunctionSignatureNode& signature) {
    std::string out = "(";
    size_t count = signature.Params ? signature.Params->Count : 0;
    for (size_t i = 0; i < count; ++i) {
      if (i)
        out += ",";
      out += type(static_cast<const TypeNode*>(signature.Params->Nodes[i]));
    }
    if (signature.IsVariadic)
      out += count ? ",..." : "...";
    else if (count == 0)
      out += "void";
    return out + ")";
  }

  static std::string qualifiers(Qualifiers quals) {
    std::string out;
    if (quals & Q_Const)
      out += " const";
    if (quals & Q_Volatile)
      out += " volatile";
    if (quals & Q_Restrict)
      out += " __restrict";
    return out;
  }

  // A type with `declarator` (what is declared of that type: "*", "C::*",
  // or nothing) placed where C's syntax puts it.
  std::string type(const TypeNode* node, const std::string& declarator = "") {
    Depth guard(*this);
    if (!node || !guard)
      return declarator;
    auto joined = [&](std::string base) {
      return declarator.empty() ? base : base + " " + declarator;
    };
    switch (node->kind()) {
    case NodeKind::PrimitiveType:
      return joined(primitiveName(static_cast<const PrimitiveTypeNode&>(*node).PrimKind) +
                    qualifiers(node->Quals));
    case NodeKind::TagType:
      return joined(qualifiedName(static_cast<const TagTypeNode&>(*node).QualifiedName) +
                    qualifiers(node->Quals));
    case NodeKind::PointerType: {
      const auto& pointer = static_cast<const PointerTypeNode&>(*node);
      std::string symbol = pointer.ClassParent ? qualifiedName(pointer.ClassParent) + "::" : "";
      switch (pointer.Affinity) {
      case PointerAffinity::Reference:
        symbol += "&";
        break;
      case PointerAffinity::RValueReference:
        symbol += "&&";
        break;
      default:
        symbol += "*";
        break;
      }
      symbol += qualifiers(pointer.Quals);
      if (!declarator.empty())
        symbol += " " + declarator;
      const TypeNode* pointee = pointer.Pointee;
      if (pointee && (pointee->kind() == NodeKind::FunctionSignature ||
                      pointee->kind() == NodeKind::ThunkSignature))
        return functionType(static_cast<const FunctionSignatureNode&>(*pointee), symbol);
      if (pointee && pointee->kind() == NodeKind::ArrayType)
        return arrayType(static_cast<const ArrayTypeNode&>(*pointee), "(" + symbol + ")");
      return type(pointee, symbol);
    }
    case NodeKind::ArrayType:
      return arrayType(static_cast<const ArrayTypeNode&>(*node), declarator);
    case NodeKind::FunctionSignature:
    case NodeKind::ThunkSignature:
      return functionType(static_cast<const FunctionSignatureNode&>(*node), declarator);
    case NodeKind::IntrinsicType:
      return declarator;
    default:
      return joined(node->toString(kFallbackFlags));
    }
  }

  // "void (*)(int)": the return type, the declarator in parentheses, the
  // parameters.
  std::string functionType(const FunctionSignatureNode& signature, const std::string& declarator) {
    std::string out = type(signature.ReturnType);
    out += " (" + declarator + ")";
    return out + parameterList(signature);
  }

  std::string arrayType(const ArrayTypeNode& array, const std::string& declarator) {
    std::string dimensions;
    if (array.Dimensions)
      for (size_t i = 0; i < array.Dimensions->Count; ++i)
        dimensions += "[" + templateArgument(array.Dimensions->Nodes[i]) + "]";
    return type(array.ElementType, declarator) + dimensions;
  }

  static bool isType(NodeKind kind) {
    switch (kind) {
    case NodeKind::PrimitiveType:
    case NodeKind::FunctionSignature:
    case NodeKind::ThunkSignature:
    case NodeKind::PointerType:
    case NodeKind::TagType:
    case NodeKind::ArrayType:
    case NodeKind::Custom:
    case NodeKind::IntrinsicType:
      return true;
    default:
      return false;
    }
  }

  int depth_ = 0;

public:
  bool too_deep_ = false;
};

} // namespace

std::optional<std::string> undnameStyle(std::string_view mangled) {
  Demangler demangler;
  std::string_view rest = mangled;
  SymbolNode* symbol = demangler.parse(rest);
  if (demangler.Error || !symbol)
    return std::nullopt;
  Printer printer;
  std::string name = printer.symbol(*symbol);
  if (printer.too_deep_)
    return std::nullopt;
  return name;
}

} // namespace dumpsyms
