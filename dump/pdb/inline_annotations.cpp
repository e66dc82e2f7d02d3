#include "dump/pdb/inline_annotations.h"

#include <llvm/DebugInfo/CodeView/CodeView.h>
#include <optional>

namespace dumpsyms {

namespace {

using Op = llvm::codeview::BinaryAnnotationsOpCode;

class Reader {
public:
  explicit Reader(llvm::ArrayRef<uint8_t> bytes) : bytes_(bytes) {}
  bool done() const { return at_ >= bytes_.size(); }

  // The compressed unsigned form: 1, 2 or 4 bytes, told by the top bits.
  std::optional<uint32_t> unsignedValue() {
    if (at_ >= bytes_.size())
      return std::nullopt;
    uint8_t first = bytes_[at_++];
    if ((first & 0x80) == 0)
      return first;
    if ((first & 0xc0) == 0x80) {
      if (at_ + 1 > bytes_.size())
        return std::nullopt;
      return (uint32_t(first & 0x3f) << 8) | bytes_[at_++];
    }
    if ((first & 0xe0) == 0xc0) {
      if (at_ + 3 > bytes_.size())
        return std::nullopt;
      uint32_t value = (uint32_t(first & 0x1f) << 24) | (uint32_t(bytes_[at_]) << 16) |
                       (uint32_t(bytes_[at_ + 1]) << 8) | bytes_[at_ + 2];
      at_ += 3;
      return value;
    }
    return std::nullopt;
  }

private:
  llvm::ArrayRef<uint8_t> bytes_;
  size_t at_ = 0;
};

// Signed operands keep the sign in the lowest bit.
int32_t signedOperand(uint32_t value) {
  return (value & 1) ? -int32_t(value >> 1) : int32_t(value >> 1);
}

} // namespace

std::vector<InlinePiece> decodeInlineAnnotations(llvm::ArrayRef<uint8_t> annotations, uint32_t line,
                                                 uint32_t file, uint32_t code_size) {
  std::vector<InlinePiece> pieces;
  uint32_t offset = 0;
  bool open = false; // the last piece has no end yet
  auto begin = [&](std::optional<uint32_t> length) {
    if (open)
      pieces.back().end = offset;
    pieces.push_back({offset, length ? offset + *length : 0, line, file});
    open = !length;
  };
  Reader reader(annotations);
  while (!reader.done()) {
    std::optional<uint32_t> opcode = reader.unsignedValue();
    if (!opcode || static_cast<Op>(*opcode) == Op::Invalid)
      break; // the stream is padded with zeros
    std::optional<uint32_t> a = reader.unsignedValue();
    if (!a)
      break;
    switch (static_cast<Op>(*opcode)) {
    case Op::ChangeCodeOffset:
      offset += *a;
      begin(std::nullopt);
      break;
    case Op::ChangeCodeOffsetAndLineOffset:
      line += signedOperand(*a >> 4);
      offset += *a & 0xf;
      begin(std::nullopt);
      break;
    case Op::ChangeCodeLengthAndCodeOffset: {
      std::optional<uint32_t> delta = reader.unsignedValue();
      if (!delta)
        return pieces;
      offset += *delta;
      begin(*a);
      break;
    }
    case Op::ChangeCodeLength:
      if (open) {
        pieces.back().end = pieces.back().start + *a;
        open = false;
      }
      offset += *a;
      break;
    case Op::ChangeFile:
      file = *a;
      break;
    case Op::ChangeLineOffset:
      line += signedOperand(*a);
      break;
    case Op::CodeOffset:
    case Op::ChangeCodeOffsetBase:
    case Op::ChangeLineEndDelta:
    case Op::ChangeRangeKind:
    case Op::ChangeColumnStart:
    case Op::ChangeColumnEndDelta:
    case Op::ChangeColumnEnd:
      break; // nothing a symbol file records
    default:
      return pieces; // unknown opcode: its operands cannot be skipped
    }
  }
  if (open)
    pieces.back().end = std::max(code_size, pieces.back().start);
  std::erase_if(pieces, [](const InlinePiece& p) { return p.end <= p.start; });
  return pieces;
}

} // namespace dumpsyms
