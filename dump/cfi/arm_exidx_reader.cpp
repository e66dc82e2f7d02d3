#include "dump/cfi/arm_exidx_reader.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/ELF.h>
#include <map>
#include <optional>

namespace dumpsyms {

using namespace llvm;

namespace {

constexpr uint32_t kCantUnwind = 1;

// Reads words of the loaded image by virtual address.
class ImageMemory {
public:
  explicit ImageMemory(const ElfImage& image) : image_(image) {}

  std::optional<uint32_t> word(uint64_t address) const {
    for (const ElfSection& section : image_.sections()) {
      if (!section.hasBytes() || !(section.flags & ELF::SHF_ALLOC) || address < section.address ||
          address + 4 > section.address + section.size)
        continue;
      StringRef bytes = image_.bytes().substr(section.offset + (address - section.address), 4);
      if (bytes.size() < 4)
        return std::nullopt;
      uint32_t value = 0;
      for (int i = 0; i < 4; ++i) {
        uint8_t byte = static_cast<uint8_t>(bytes[i]);
        value |= uint32_t(byte) << (8 * (image_.isLittleEndian() ? i : 3 - i));
      }
      return value;
    }
    return std::nullopt;
  }

private:
  const ElfImage& image_;
};

// A prel31 field: a signed 31-bit offset from the field's own address.
uint64_t prel31(uint32_t word, uint64_t at) {
  int64_t offset = static_cast<int64_t>(static_cast<int32_t>(word << 1) >> 1);
  return static_cast<uint32_t>(at + offset);
}

// Runs unwind opcodes as the EHABI unwinder would, keeping where each
// register was saved relative to the virtual stack pointer's base.
class OpcodeMachine {
public:
  // Returns "" or why the opcodes cannot be turned into rules.
  std::string run(const std::vector<uint8_t>& ops) {
    for (size_t i = 0; i < ops.size(); ++i) {
      uint8_t op = ops[i];
      auto next = [&]() -> std::optional<uint8_t> {
        if (i + 1 >= ops.size())
          return std::nullopt;
        return ops[++i];
      };
      if ((op & 0xc0) == 0x00) {
        offset_ += ((op & 0x3f) << 2) + 4;
      } else if ((op & 0xc0) == 0x40) {
        offset_ -= ((op & 0x3f) << 2) + 4;
      } else if ((op & 0xf0) == 0x80) {
        auto low = next();
        if (!low)
          return "truncated opcode";
        uint16_t mask = static_cast<uint16_t>(((op & 0x0f) << 8) | *low);
        if (mask == 0)
          return "refuse to unwind";
        for (int r = 0; r < 12; ++r)
          if (mask & (1 << r))
            pop(4 + r);
      } else if ((op & 0xf0) == 0x90) {
        int reg = op & 0x0f;
        if (reg == 13 || reg == 15)
          return "reserved opcode";
        base_ = reg;
        offset_ = 0;
        saved_.clear(); // slots below the new base are no longer reachable
      } else if ((op & 0xf0) == 0xa0) {
        for (int r = 4; r <= 4 + (op & 0x07); ++r)
          pop(r);
        if (op & 0x08)
          pop(14);
      } else if (op == 0xb0) {
        break; // finish
      } else if (op == 0xb1) {
        auto mask = next();
        if (!mask || *mask == 0 || (*mask & 0xf0))
          return "spare opcode";
        for (int r = 0; r < 4; ++r)
          if (*mask & (1 << r))
            pop(r);
      } else if (op == 0xb2) {
        uint64_t value = 0;
        int shift = 0;
        for (;;) {
          auto byte = next();
          if (!byte || shift > 56)
            return "truncated opcode";
          value |= uint64_t(*byte & 0x7f) << shift;
          shift += 7;
          if (!(*byte & 0x80))
            break;
        }
        offset_ += 0x204 + (value << 2);
      } else if (op == 0xb3 || op == 0xc8 || op == 0xc9) {
        auto spec = next();
        if (!spec)
          return "truncated opcode";
        offset_ += 8 * ((*spec & 0x0f) + 1) + (op == 0xb3 ? 4 : 0);
      } else if ((op & 0xf8) == 0xb8) {
        offset_ += 8 * ((op & 0x07) + 1) + 4; // FSTMFDX d8-d(8+n)
      } else if ((op & 0xf8) == 0xd0) {
        offset_ += 8 * ((op & 0x07) + 1); // VPUSH d8-d(8+n)
      } else if ((op & 0xf8) == 0xc0 && (op & 0x07) < 6) {
        offset_ += 8 * ((op & 0x07) + 1); // iWMMXt wR10-wR(10+n)
      } else if (op == 0xc6) {
        auto spec = next();
        if (!spec)
          return "truncated opcode";
        offset_ += 8 * ((*spec & 0x0f) + 1);
      } else if (op == 0xc7) {
        auto mask = next();
        if (!mask || *mask == 0 || (*mask & 0xf0))
          return "spare opcode";
        for (int r = 0; r < 4; ++r)
          if (*mask & (1 << r))
            offset_ += 4;
      } else {
        return "spare opcode 0x" + utohexstr(op);
      }
    }
    return "";
  }

  // The rules at the function body: the CFA is the final virtual stack
  // pointer; saved registers are found relative to it.
  std::vector<CfiRule> rules() const {
    static const char* names[16] = {"r0", "r1", "r2",  "r3",  "r4",  "r5", "r6", "r7",
                                    "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"};
    std::vector<CfiRule> out;
    out.push_back({".cfa", std::string(names[base_]) + " " + std::to_string(offset_) + " +"});
    auto slot = [&](int64_t at) { return ".cfa " + std::to_string(at - offset_) + " + ^"; };
    // The return address: a popped pc, else the (possibly restored) lr,
    // which like DWARF's return-address column is then written as .ra only.
    auto pc = saved_.find(15);
    auto lr = saved_.find(14);
    for (const auto& [reg, at] : saved_) {
      if (reg == 15 || reg == 13 || (reg == 14 && pc == saved_.end()))
        continue;
      out.push_back({names[reg], slot(at)});
    }
    if (pc != saved_.end())
      out.push_back({".ra", slot(pc->second)});
    else if (lr != saved_.end())
      out.push_back({".ra", slot(lr->second)});
    else
      out.push_back({".ra", "lr"});
    return out;
  }

private:
  void pop(int reg) {
    // A register popped twice keeps its first (innermost) slot: the
    // unwinder restores it from there, and later pops cannot happen.
    saved_.try_emplace(reg, offset_);
    offset_ += 4;
  }

  int base_ = 13; // sp
  int64_t offset_ = 0;
  std::map<int, int64_t> saved_; // register -> offset from the base
};

// Appends the bytes of the `count` opcode words that follow `address`, most
// significant byte first; false when they are not there.
bool appendOpcodeWords(const ImageMemory& memory, uint64_t address, unsigned count,
                       std::vector<uint8_t>& ops, std::string& reason) {
  for (unsigned k = 1; k <= count; ++k) {
    std::optional<uint32_t> word = memory.word(address + 4 * k);
    if (!word) {
      reason = "truncated .ARM.extab entry";
      return false;
    }
    for (int shift = 24; shift >= 0; shift -= 8)
      ops.push_back(uint8_t(*word >> shift));
  }
  return true;
}

// The unwind opcodes of one entry, from its inline word or its .ARM.extab
// record. std::nullopt with a reason when there are none to run.
std::optional<std::vector<uint8_t>> opcodes(const ImageMemory& memory, uint32_t entry,
                                            uint64_t entry_address, std::string& reason) {
  std::vector<uint8_t> ops;
  auto compact = [&](uint32_t word, uint64_t address) -> bool {
    unsigned personality = (word >> 24) & 0x0f;
    if (personality == 0) {
      ops = {uint8_t(word >> 16), uint8_t(word >> 8), uint8_t(word)};
      return true;
    }
    if (personality > 2) {
      reason = "unknown compact personality " + std::to_string(personality);
      return false;
    }
    ops = {uint8_t(word >> 8), uint8_t(word)};
    return appendOpcodeWords(memory, address, (word >> 16) & 0xff, ops, reason);
  };

  if (entry & 0x80000000u)
    return compact(entry, entry_address) ? std::optional(ops) : std::nullopt;
  uint64_t record = prel31(entry, entry_address);
  std::optional<uint32_t> first = memory.word(record);
  if (!first) {
    reason = "entry points outside the image";
    return std::nullopt;
  }
  if (*first & 0x80000000u)
    return compact(*first, record) ? std::optional(ops) : std::nullopt;
  // A generic personality routine (gcc's __gxx_personality_v0): its data
  // begins with the opcodes in the __aeabi_unwind_cpp_pr1 layout.
  std::optional<uint32_t> data = memory.word(record + 4);
  if (!data) {
    reason = "truncated .ARM.extab entry";
    return std::nullopt;
  }
  ops = {uint8_t(*data >> 16), uint8_t(*data >> 8), uint8_t(*data)};
  if (!appendOpcodeWords(memory, record + 4, (*data >> 24) & 0xff, ops, reason))
    return std::nullopt;
  return ops;
}

} // namespace

std::vector<CfiFrame> readArmExidx(const ElfImage& image, CfiStats& stats,
                                   Diagnostics& diagnostics) {
  std::vector<CfiFrame> frames;
  if (image.machine() != ELF::EM_ARM)
    return frames;
  const ElfSection* exidx = nullptr;
  for (const ElfSection& section : image.sections())
    if (section.type == ELF::SHT_ARM_EXIDX && section.hasBytes())
      exidx = &section;
  if (!exidx)
    return frames;
  ImageMemory memory(image);

  // Entries are sorted by function address; each covers up to the next.
  struct Entry {
    uint64_t function;
    uint32_t value;
    uint64_t address;
  };
  std::vector<Entry> entries;
  for (uint64_t at = exidx->address; at + 8 <= exidx->address + exidx->size; at += 8) {
    std::optional<uint32_t> function = memory.word(at);
    std::optional<uint32_t> value = memory.word(at + 4);
    if (!function || !value)
      break;
    entries.push_back({prel31(*function, at) & ~uint64_t(1), *value, at + 4});
  }
  // The last entry reaches to the end of the code section holding it.
  auto sectionEnd = [&](uint64_t address) -> uint64_t {
    for (const ElfSection& section : image.sections())
      if ((section.flags & ELF::SHF_EXECINSTR) && address >= section.address &&
          address < section.address + section.size)
        return section.address + section.size;
    return address;
  };

  size_t unusable = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    if (entry.value == kCantUnwind)
      continue;
    uint64_t end = i + 1 < entries.size() ? entries[i + 1].function : sectionEnd(entry.function);
    if (end <= entry.function)
      continue;
    std::string reason;
    std::optional<std::vector<uint8_t>> ops = opcodes(memory, entry.value, entry.address, reason);
    OpcodeMachine machine;
    if (ops)
      reason = machine.run(*ops);
    if (!ops || !reason.empty()) {
      ++unusable;
      ++stats.reasons["ARM EHABI entry: " + reason];
      continue;
    }
    CfiFrame frame;
    frame.range = {entry.function, end};
    frame.initial = machine.rules();
    stats.rules_written += frame.initial.size();
    frames.push_back(std::move(frame));
  }
  if (unusable)
    diagnostics.warn(image.path() + ": .ARM.exidx: " + std::to_string(unusable) +
                     " entries could not be turned into CFI");
  return frames;
}

} // namespace dumpsyms
