#include "dump/cfi/dwarf_cfi_reader.h"

#include "dump/cfi/frame_section_guard.h"
#include "dump/cfi/postfix_translation.h"
#include "dump/cfi/rule_rows.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>
#include <llvm/Support/Casting.h>
#include <llvm/TargetParser/Triple.h>

namespace dumpsyms {

using namespace llvm;

namespace {

Triple::ArchType archOf(uint16_t machine, bool is_64_bit, bool little_endian) {
  switch (machine) {
  case ELF::EM_386:
    return Triple::x86;
  case ELF::EM_X86_64:
    return Triple::x86_64;
  case ELF::EM_ARM:
    return little_endian ? Triple::arm : Triple::armeb;
  case ELF::EM_AARCH64:
    return little_endian ? Triple::aarch64 : Triple::aarch64_be;
  case ELF::EM_MIPS:
    return is_64_bit ? (little_endian ? Triple::mips64el : Triple::mips64)
                     : (little_endian ? Triple::mipsel : Triple::mips);
  case ELF::EM_RISCV:
    return is_64_bit ? Triple::riscv64 : Triple::riscv32;
  case ELF::EM_PPC64:
    return little_endian ? Triple::ppc64le : Triple::ppc64;
  default:
    return Triple::UnknownArch;
  }
}

// Rules of one row, by Breakpad column name.
using RuleMap = std::map<std::string, std::string>;

constexpr const char* kUndefined = ".undef";

class RowTranslator {
public:
  RowTranslator(const RegisterNames& registers, uint64_t ra_column, bool little_endian,
                CfiStats& stats)
      : registers_(registers), ra_column_(ra_column), little_endian_(little_endian), stats_(stats) {
  }

  RuleMap translate(const RuleState& state) {
    RuleMap rules;
    rules[".cfa"] = cfa(state);
    bool has_ra = false;
    for (const auto& [reg, rule] : state.columns) {
      std::string name = columnName(reg);
      if (name.empty()) {
        untranslated("a rule for a register Breakpad has no name for");
        continue;
      }
      has_ra |= reg == ra_column_;
      rules[name] = column(reg, rule);
    }
    // Without a rule, the return address is still in its register.
    if (!has_ra && !registers_.name(ra_column_).empty())
      rules[".ra"] = registers_.name(ra_column_);
    return rules;
  }

  // The rule a column gets when it loses the one it had (a restore to the
  // CIE's "no rule"): its value is the callee's.
  std::string sameValue(const std::string& name) const {
    if (name == ".cfa")
      return kUndefined;
    if (name == ".ra")
      return registers_.name(ra_column_).empty() ? kUndefined : registers_.name(ra_column_);
    return name;
  }

private:
  std::string columnName(uint64_t reg) const {
    return reg == ra_column_ ? ".ra" : registers_.name(reg);
  }

  void untranslated(const std::string& reason) {
    ++stats_.rules_untranslated;
    ++stats_.reasons[reason];
  }

  std::string expression(const std::string& bytes, bool push_cfa, bool dereference) {
    PostfixResult result =
        translateExpression(bytes, little_endian_, registers_, push_cfa, dereference);
    if (result.postfix.empty()) {
      untranslated("DWARF expression: " + result.reason);
      return kUndefined;
    }
    return result.postfix;
  }

  std::string cfa(const RuleState& state) {
    if (!state.cfa) {
      untranslated("no CFA rule");
      return kUndefined;
    }
    if (state.cfa->is_expression)
      return expression(state.cfa->expression, /*push_cfa=*/false, /*dereference=*/false);
    const std::string& name = registers_.name(state.cfa->reg);
    if (name.empty()) {
      untranslated("CFA based on a register Breakpad has no name for");
      return kUndefined;
    }
    return name + " " + std::to_string(state.cfa->offset) + " +";
  }

  std::string column(uint64_t reg, const ColumnRule& rule) {
    switch (rule.kind) {
    case ColumnRule::Kind::Undefined:
      return kUndefined;
    case ColumnRule::Kind::SameValue:
      return registers_.name(reg).empty() ? kUndefined : registers_.name(reg);
    case ColumnRule::Kind::AtCfaOffset:
      return ".cfa " + std::to_string(rule.offset) + " + ^";
    case ColumnRule::Kind::CfaOffset:
      return ".cfa " + std::to_string(rule.offset) + " +";
    case ColumnRule::Kind::InRegister:
      if (registers_.name(rule.reg).empty()) {
        untranslated("a value in a register Breakpad has no name for");
        return kUndefined;
      }
      return registers_.name(rule.reg);
    case ColumnRule::Kind::AtExpression:
      return expression(rule.expression, /*push_cfa=*/true, /*dereference=*/true);
    case ColumnRule::Kind::ExpressionValue:
      return expression(rule.expression, /*push_cfa=*/true, /*dereference=*/false);
    }
    return kUndefined;
  }

  const RegisterNames& registers_;
  uint64_t ra_column_;
  bool little_endian_;
  CfiStats& stats_;
};

// LLVM's .eh_frame parser gives up on the whole section at a personality or
// LSDA pointer encoded relative to data, text or a function (DW_EH_PE_datarel,
// textrel, funcrel): it cannot compute such values. We never use them, so
// in a copy those encodings become plain values of the same size.
std::optional<std::string> withReadablePersonalities(StringRef bytes, bool little_endian,
                                                     unsigned address_size) {
  std::string copy;
  auto word = [&](uint64_t at, unsigned size) {
    uint64_t value = 0;
    for (unsigned i = 0; i < size; ++i)
      value |= uint64_t(static_cast<uint8_t>(bytes[at + i]))
               << (8 * (little_endian ? i : size - 1 - i));
    return value;
  };
  auto leb = [&](uint64_t& at) {
    while (at < bytes.size() && (static_cast<uint8_t>(bytes[at]) & 0x80))
      ++at;
    ++at;
  };
  auto unreadable = [](uint8_t encoding) {
    uint8_t application = encoding & 0x70;
    return encoding != dwarf::DW_EH_PE_omit &&
           (application == dwarf::DW_EH_PE_datarel || application == dwarf::DW_EH_PE_textrel ||
            application == dwarf::DW_EH_PE_funcrel);
  };
  auto pointerSize = [&](uint8_t encoding) -> unsigned {
    switch (encoding & 0x0f) {
    case dwarf::DW_EH_PE_udata2:
    case dwarf::DW_EH_PE_sdata2:
      return 2;
    case dwarf::DW_EH_PE_udata4:
    case dwarf::DW_EH_PE_sdata4:
      return 4;
    case dwarf::DW_EH_PE_udata8:
    case dwarf::DW_EH_PE_sdata8:
      return 8;
    case dwarf::DW_EH_PE_absptr:
      return address_size;
    default:
      return 0;
    }
  };
  uint64_t offset = 0;
  while (offset + 8 <= bytes.size()) {
    uint64_t length = word(offset, 4);
    uint64_t header = offset + 4;
    if (length == 0)
      break;
    if (length == 0xffffffff)
      return std::nullopt; // 64-bit .eh_frame: left to LLVM as it is
    uint64_t end = header + length;
    if (end > bytes.size())
      break;
    if (word(header, 4) == 0) { // a CIE
      uint64_t at = header + 5;
      size_t string_end = bytes.find('\0', at);
      if (string_end == StringRef::npos || string_end >= end)
        break;
      StringRef augmentation = bytes.slice(at, string_end);
      at = string_end + 1;
      uint8_t version = static_cast<uint8_t>(bytes[header + 4]);
      leb(at); // code alignment
      leb(at); // data alignment
      if (version == 1)
        ++at;
      else
        leb(at); // return address register
      if (augmentation.starts_with("z")) {
        leb(at); // augmentation length
        for (char c : augmentation.drop_front()) {
          if (at >= end)
            break;
          uint8_t encoding = static_cast<uint8_t>(bytes[at]);
          if (c == 'P' || c == 'L') {
            if (unreadable(encoding)) {
              if (copy.empty())
                copy = bytes.str();
              copy[at] = static_cast<char>(encoding & ~0x70);
            }
            ++at;
            if (c == 'P')
              at += pointerSize(encoding);
          } else if (c == 'R') {
            ++at;
          } else if (c != 'S' && c != 'B' && c != 'G') {
            break;
          }
        }
      }
    }
    offset = end;
  }
  if (copy.empty())
    return std::nullopt;
  return copy;
}

std::vector<CfiRule> toRules(const RuleMap& map) {
  std::vector<CfiRule> rules;
  for (const auto& [name, expression] : map)
    rules.push_back({name, expression});
  return rules;
}

} // namespace

std::vector<CfiFrame> readDwarfCfi(const CfiSectionInput& input, const RegisterNames& registers,
                                   CfiStats& stats, Diagnostics& diagnostics) {
  std::vector<CfiFrame> frames;
  DWARFDebugFrame parser(archOf(input.machine, input.is_64_bit, input.little_endian),
                         input.is_eh_frame, input.address);
  std::optional<std::string> readable;
  if (input.is_eh_frame)
    readable = withReadablePersonalities(input.bytes, input.little_endian, input.is_64_bit ? 8 : 4);
  StringRef bytes = readable ? StringRef(*readable) : input.bytes;
  FramePrefix prefix = wellLinkedFramePrefix(bytes, input.is_eh_frame, input.little_endian);
  if (!prefix.problem.empty())
    diagnostics.warn(input.origin + ": " + prefix.problem);
  DWARFDataExtractor data(bytes.take_front(prefix.size), input.little_endian,
                          input.is_64_bit ? 8 : 4);
  if (Error error = parser.parse(data))
    diagnostics.warn(input.origin + ": " + toString(std::move(error)) +
                     " (the entries before it are used)");

  for (const dwarf::FrameEntry& entry : parser.entries()) {
    const auto* fde = dyn_cast<dwarf::FDE>(&entry);
    if (!fde || fde->getAddressRange() == 0 || !fde->getLinkedCIE())
      continue;
    RuleTable table = runFrameProgram(*fde);
    if (!table.error.empty()) {
      diagnostics.warn(input.origin + ": FDE at offset 0x" + utohexstr(fde->getOffset()) + ": " +
                       table.error + " (rules up to that point are kept)");
    }
    if (table.rows.empty())
      continue;
    RowTranslator translator(registers, fde->getLinkedCIE()->getReturnAddressRegister(),
                             input.little_endian, stats);
    CfiFrame frame;
    frame.range =
        AddressRange{fde->getInitialLocation(), fde->getInitialLocation() + fde->getAddressRange()};
    RuleMap previous = translator.translate(table.rows.front().state);
    frame.initial = toRules(previous);
    for (size_t i = 1; i < table.rows.size(); ++i) {
      RuleMap current = translator.translate(table.rows[i].state);
      // A column that lost its rule now holds the callee's value.
      for (const auto& [name, expression] : previous)
        if (!current.count(name))
          current[name] = translator.sameValue(name);
      RuleMap changed;
      for (const auto& [name, expression] : current) {
        auto before = previous.find(name);
        if (before == previous.end() || before->second != expression)
          changed[name] = expression;
      }
      if (!changed.empty())
        frame.changes.push_back({table.rows[i].address, toRules(changed)});
      previous = std::move(current);
    }
    stats.rules_written += frame.initial.size();
    for (const CfiChange& change : frame.changes)
      stats.rules_written += change.rules.size();
    frames.push_back(std::move(frame));
  }
  return frames;
}

} // namespace dumpsyms
