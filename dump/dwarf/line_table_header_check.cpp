#include "dump/dwarf/line_table_header_check.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <optional>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// Reads forward within [position, end); every read past `end` fails.
class HeaderCursor {
public:
  HeaderCursor(StringRef bytes, uint64_t position, uint64_t end, bool little_endian)
      : bytes_(bytes), position_(position), end_(end), little_(little_endian) {}

  uint64_t position() const { return position_; }
  uint64_t end() const { return end_; }
  void limit(uint64_t end) { end_ = end; }

  std::optional<uint64_t> fixed(unsigned size) {
    if (size > end_ - position_)
      return std::nullopt;
    uint64_t value = 0;
    for (unsigned i = 0; i < size; ++i) {
      uint64_t byte = static_cast<uint8_t>(bytes_[position_ + i]);
      value |= byte << (8 * (little_ ? i : size - 1 - i));
    }
    position_ += size;
    return value;
  }

  std::optional<uint64_t> uleb() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (position_ >= end_)
        return std::nullopt;
      uint8_t byte = static_cast<uint8_t>(bytes_[position_++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
    return std::nullopt; // longer than any 64-bit value
  }

  // A NUL-terminated string; returns its length.
  std::optional<uint64_t> string() {
    for (uint64_t i = position_; i < end_; ++i)
      if (bytes_[i] == '\0') {
        uint64_t length = i - position_;
        position_ = i + 1;
        return length;
      }
    return std::nullopt;
  }

  bool skip(uint64_t size) {
    if (size > end_ - position_)
      return false;
    position_ += size;
    return true;
  }

private:
  StringRef bytes_;
  uint64_t position_;
  uint64_t end_;
  bool little_;
};

bool isStringForm(uint64_t form) {
  switch (form) {
  case dwarf::DW_FORM_string:
  case dwarf::DW_FORM_line_strp:
  case dwarf::DW_FORM_strp:
  case dwarf::DW_FORM_strp_sup:
  case dwarf::DW_FORM_GNU_strp_alt:
  case dwarf::DW_FORM_strx:
  case dwarf::DW_FORM_strx1:
  case dwarf::DW_FORM_strx2:
  case dwarf::DW_FORM_strx3:
  case dwarf::DW_FORM_strx4:
    return true;
  default:
    return false;
  }
}

// Forms LLVM turns into a number with getAsUnsignedConstant(); it
// dereferences that result for the directory index, timestamp and size of
// a file entry, so any other form there is a crash.
bool isUnsignedForm(uint64_t form) {
  switch (form) {
  case dwarf::DW_FORM_data1:
  case dwarf::DW_FORM_data2:
  case dwarf::DW_FORM_data4:
  case dwarf::DW_FORM_data8:
  case dwarf::DW_FORM_udata:
    return true;
  default:
    return false;
  }
}

bool isBlockForm(uint64_t form) {
  return form == dwarf::DW_FORM_data16 || form == dwarf::DW_FORM_block ||
         form == dwarf::DW_FORM_block1 || form == dwarf::DW_FORM_block2 ||
         form == dwarf::DW_FORM_block4;
}

// Whether LLVM can read a value of `form` for content type `type`.
std::string formProblem(uint64_t type, uint64_t form) {
  bool fits;
  switch (type) {
  case dwarf::DW_LNCT_path:
    fits = isStringForm(form);
    break;
  case dwarf::DW_LNCT_directory_index:
  case dwarf::DW_LNCT_timestamp:
  case dwarf::DW_LNCT_size:
    fits = isUnsignedForm(form);
    break;
  case dwarf::DW_LNCT_MD5:
    fits = form == dwarf::DW_FORM_data16;
    break;
  default: // vendor content (LLVM's source text): read and ignored
    fits = isStringForm(form) || isUnsignedForm(form) || isBlockForm(form);
    break;
  }
  if (fits)
    return "";
  return "content type 0x" + utohexstr(type) + " with form 0x" + utohexstr(form);
}

// Steps over one value of a form formProblem() accepted.
bool skipValue(HeaderCursor& cursor, uint64_t form, unsigned offset_size) {
  switch (form) {
  case dwarf::DW_FORM_string:
    return cursor.string().has_value();
  case dwarf::DW_FORM_line_strp:
  case dwarf::DW_FORM_strp:
  case dwarf::DW_FORM_strp_sup:
  case dwarf::DW_FORM_GNU_strp_alt:
    return cursor.skip(offset_size);
  case dwarf::DW_FORM_strx:
  case dwarf::DW_FORM_udata:
    return cursor.uleb().has_value();
  case dwarf::DW_FORM_strx1:
  case dwarf::DW_FORM_data1:
    return cursor.skip(1);
  case dwarf::DW_FORM_strx2:
  case dwarf::DW_FORM_data2:
    return cursor.skip(2);
  case dwarf::DW_FORM_strx3:
    return cursor.skip(3);
  case dwarf::DW_FORM_strx4:
  case dwarf::DW_FORM_data4:
    return cursor.skip(4);
  case dwarf::DW_FORM_data8:
    return cursor.skip(8);
  case dwarf::DW_FORM_data16:
    return cursor.skip(16);
  case dwarf::DW_FORM_block1:
  case dwarf::DW_FORM_block2:
  case dwarf::DW_FORM_block4: {
    unsigned size = form == dwarf::DW_FORM_block1 ? 1 : form == dwarf::DW_FORM_block2 ? 2 : 4;
    auto length = cursor.fixed(size);
    return length && cursor.skip(*length);
  }
  case dwarf::DW_FORM_block: {
    auto length = cursor.uleb();
    return length && cursor.skip(*length);
  }
  default:
    return false;
  }
}

// A DWARF 5 entry format and the entries it describes (directories or files).
std::string checkV5Entries(HeaderCursor& cursor, unsigned offset_size, const char* what) {
  auto format_count = cursor.fixed(1);
  if (!format_count)
    return std::string(what) + " entry format runs past the header";
  std::vector<uint64_t> forms;
  bool has_path = false;
  for (uint64_t i = 0; i < *format_count; ++i) {
    auto type = cursor.uleb();
    auto form = cursor.uleb();
    if (!type || !form)
      return std::string(what) + " entry format runs past the header";
    if (std::string problem = formProblem(*type, *form); !problem.empty())
      return std::string(what) + " entry format: " + problem;
    has_path |= *type == dwarf::DW_LNCT_path;
    forms.push_back(*form);
  }
  if (!has_path)
    return std::string(what) + " entry format has no path";
  auto count = cursor.uleb();
  if (!count)
    return std::string(what) + " count runs past the header";
  // Every accepted form takes at least one byte, so a count larger than the
  // header is a lie, caught before it is walked.
  if (*count > cursor.end() - cursor.position())
    return std::string(what) + " count " + std::to_string(*count) + " exceeds the header";
  for (uint64_t entry = 0; entry < *count; ++entry)
    for (uint64_t form : forms)
      if (!skipValue(cursor, form, offset_size))
        return std::string(what) + " entry " + std::to_string(entry) + " runs past the header";
  return "";
}

std::string checkV2Entries(HeaderCursor& cursor) {
  while (true) {
    auto length = cursor.string();
    if (!length)
      return "include directories run past the header";
    if (*length == 0)
      break;
  }
  while (true) {
    auto length = cursor.string();
    if (!length)
      return "file names run past the header";
    if (*length == 0)
      break;
    for (int field = 0; field < 3; ++field) // directory, time, size
      if (!cursor.uleb())
        return "file names run past the header";
  }
  return "";
}

// The operand count of each standard opcode DWARF defines (index = opcode).
constexpr uint8_t kStandardOperands[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

} // namespace

std::string lineTableHeaderProblem(const LineTableLocation& where) {
  StringRef bytes = where.section;
  if (where.offset >= bytes.size())
    return "offset 0x" + utohexstr(where.offset) + " is past the end of the section";
  HeaderCursor cursor(bytes, where.offset, bytes.size(), where.little_endian);
  auto length = cursor.fixed(4);
  if (!length)
    return "too short for a length";
  unsigned offset_size = 4;
  if (*length == 0xffffffff) {
    length = cursor.fixed(8);
    offset_size = 8;
    if (!length)
      return "too short for a 64-bit length";
  } else if (*length >= 0xfffffff0) {
    return "reserved length 0x" + utohexstr(*length);
  }
  if (*length > bytes.size() - cursor.position())
    return "length 0x" + utohexstr(*length) + " runs past the end of the section";
  cursor.limit(cursor.position() + *length);

  auto version = cursor.fixed(2);
  if (!version || *version < 2 || *version > 5)
    return version ? "unsupported version " + std::to_string(*version) : "no version";
  if (*version == 5) {
    auto address_size = cursor.fixed(1);
    auto selector_size = cursor.fixed(1);
    if (!address_size || !selector_size)
      return "header runs past the table";
    if (*address_size != 4 && *address_size != 8)
      return "address size " + std::to_string(*address_size);
  }
  auto header_length = cursor.fixed(offset_size);
  if (!header_length)
    return "header runs past the table";
  if (*header_length > cursor.end() - cursor.position())
    return "header length 0x" + utohexstr(*header_length) + " runs past the table";
  cursor.limit(cursor.position() + *header_length);

  unsigned fixed_fields = *version >= 4 ? 6 : 5; // up to and including opcode_base
  if (!cursor.skip(fixed_fields - 1))
    return "header too short";
  auto opcode_base = cursor.fixed(1);
  if (!opcode_base)
    return "header too short";
  for (uint64_t opcode = 1; opcode < *opcode_base; ++opcode) {
    auto operands = cursor.fixed(1);
    if (!operands)
      return "standard opcode lengths run past the header";
    if (opcode < std::size(kStandardOperands) && *operands != kStandardOperands[opcode])
      return "standard opcode " + std::to_string(opcode) + " said to take " +
             std::to_string(*operands) + " operands";
  }

  if (*version < 5)
    return checkV2Entries(cursor);
  if (std::string problem = checkV5Entries(cursor, offset_size, "directory"); !problem.empty())
    return problem;
  return checkV5Entries(cursor, offset_size, "file name");
}

} // namespace dumpsyms
