// Little-endian bytes built field by field, for the tests that hand-make
// DWARF, CFI and ELF notes. Storage is std::string or std::vector<uint8_t>,
// whichever the code under test takes.
#pragma once

#include <cstdint>
#include <string>

namespace dumpsyms::test_support {

template <class Storage> class ByteWriter {
public:
  ByteWriter& u8(uint64_t v) {
    data_.push_back(static_cast<typename Storage::value_type>(v));
    return *this;
  }
  ByteWriter& u16(uint64_t v) { return u8(v).u8(v >> 8); }
  ByteWriter& u32(uint64_t v) { return u16(v).u16(v >> 16); }
  ByteWriter& u64(uint64_t v) { return u32(v).u32(v >> 32); }
  ByteWriter& uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      u8(byte | (v ? 0x80 : 0));
    } while (v);
    return *this;
  }
  ByteWriter& sleb(int64_t v) {
    bool more = true;
    while (more) {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
      u8(byte | (more ? 0x80 : 0));
    }
    return *this;
  }
  // The string and its NUL.
  ByteWriter& str(const std::string& s) {
    data_.insert(data_.end(), s.begin(), s.end());
    return u8(0);
  }
  ByteWriter& raw(const Storage& bytes) {
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  size_t size() const { return data_.size(); }
  const Storage& data() const { return data_; }

private:
  Storage data_;
};

} // namespace dumpsyms::test_support
