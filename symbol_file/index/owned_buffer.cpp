#include "symbol_file/index/owned_buffer.h"

namespace dumpsyms {

namespace {

class StringBuffer : public llvm::MemoryBuffer {
public:
  StringBuffer(std::string bytes, llvm::StringRef name)
      : bytes_(std::move(bytes)), name_(name.str()) {
    init(bytes_.data(), bytes_.data() + bytes_.size(), /*RequiresNullTerminator=*/false);
  }
  llvm::StringRef getBufferIdentifier() const override { return name_; }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  std::string bytes_;
  std::string name_;
};

} // namespace

std::unique_ptr<llvm::MemoryBuffer> ownedBuffer(std::string bytes, llvm::StringRef name) {
  return std::make_unique<StringBuffer>(std::move(bytes), name);
}

} // namespace dumpsyms
