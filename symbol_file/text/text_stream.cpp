#include "symbol_file/text/text_stream.h"

#include "common/errors/file_error.h"
#include "common/limits/input_limits.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// The line being carried over from one read to the next.
class CarriedLine {
public:
  explicit CarriedLine(SymbolTextParser& parser) : parser_(parser) {}

  bool empty() const { return text_.empty() && !overlong_; }

  // More of the line (no '\n' in it). Beyond the limit only trailing '\r'
  // (which the parser trims) may follow; anything else makes it overlong.
  void add(llvm::StringRef piece) {
    if (overlong_)
      return;
    size_t room = limits::kMaxSymbolFileLine - std::min(text_.size(), limits::kMaxSymbolFileLine);
    text_.append(piece.data(), std::min(room, piece.size()));
    if (piece.size() > room &&
        piece.drop_front(room).find_first_not_of('\r') != llvm::StringRef::npos) {
      overlong_ = true;
      text_.clear();
      text_.shrink_to_fit();
    }
  }

  // The line ended: to the parser.
  void end() {
    if (overlong_)
      parser_.overlongLine();
    else
      parser_.lines(text_);
    text_.clear();
    overlong_ = false;
  }

private:
  SymbolTextParser& parser_;
  std::string text_;
  bool overlong_ = false;
};

} // namespace

llvm::Error streamSymbolFile(int fd, const std::string& path, SymbolTextParser& parser,
                             const std::function<void(llvm::StringRef, uint64_t)>& bytes) {
  std::unique_ptr<char[]> buffer(new char[kStreamChunk]);
  CarriedLine carried(parser);
  uint64_t offset = 0;
  for (;;) {
    size_t got = 0;
    while (got < kStreamChunk) {
      ssize_t n =
          ::pread(fd, buffer.get() + got, kStreamChunk - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: cannot read it: %s",
                                       path.c_str(), std::strerror(errno));
      if (n == 0)
        break;
      got += static_cast<size_t>(n);
    }
    if (got == 0)
      break;
    llvm::StringRef data(buffer.get(), got);
    if (bytes)
      bytes(data, offset);
    offset += got;
    // The end of the line carried over from the read before.
    if (!carried.empty()) {
      size_t newline = data.find('\n');
      carried.add(data.take_front(newline));
      if (newline == llvm::StringRef::npos)
        continue;
      carried.end();
      data = data.drop_front(newline + 1);
    }
    // Whole lines straight from the buffer; the unfinished one is carried.
    size_t last = data.rfind('\n');
    if (last != llvm::StringRef::npos) {
      parser.lines(data.take_front(last + 1));
      data = data.drop_front(last + 1);
    }
    carried.add(data);
    if (got < kStreamChunk)
      break;
  }
  if (!carried.empty())
    carried.end();
  return llvm::Error::success();
}

llvm::Expected<ParsedSymbolFile> readSymbolFileStream(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: cannot read it: %s",
                                   path.c_str(), std::strerror(errno));
  ParsedSymbolFile out;
  ModuleRecordSink sink(out.module);
  SymbolTextParser parser(sink, static_cast<uint64_t>(st.st_size));
  if (auto error = streamSymbolFile(fd, path, parser))
    return error;
  out.problems = parser.takeProblems();
  return out;
}

llvm::Expected<ParsedSymbolFile> parseSymbolFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
  auto parsed = readSymbolFileStream(fd, path);
  ::close(fd);
  if (!parsed)
    return parsed.takeError();
  if (parsed->module.name.empty())
    return fileError(path, "is not a symbol file (no MODULE record)");
  return parsed;
}

} // namespace dumpsyms
