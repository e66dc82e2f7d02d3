#include "server/ingest/upload_checks.h"

#include "common/limits/input_limits.h"
#include "store/layout/layout.h"
#include "symbol_file/text/text_reader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/ConvertUTF.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {

namespace {

// Keeps the MODULE line and INFO CODE_ID; every other record is only
// checked by the parser.
class FactsSink : public SymbolRecordSink {
public:
  void moduleRecord(llvm::StringRef os, llvm::StringRef cpu, llvm::StringRef debug_id,
                    llvm::StringRef name) override {
    ++modules;
    if (modules == 1) {
      facts.os = os.str();
      facts.cpu = cpu.str();
      facts.debug_id = DebugId(debug_id.str());
      facts.debug_file = name.str();
    }
  }
  void codeId(llvm::StringRef code_id, llvm::StringRef code_file) override {
    facts.code_id = CodeId(code_id.str());
    facts.code_file = code_file.str();
  }
  void info(llvm::StringRef) override {}
  void file(uint32_t, llvm::StringRef) override {}
  void inlineOrigin(uint32_t, llvm::StringRef) override {}
  void function(uint64_t, uint64_t, uint64_t, bool, llvm::StringRef) override {}
  void line(const SourceLine&) override {}
  void inlineCall(uint32_t, uint32_t, std::optional<uint32_t>, uint32_t,
                  llvm::ArrayRef<AddressRange>) override {}
  void publicSymbol(uint64_t, uint64_t, bool, llvm::StringRef) override {}
  void cfiInit(AddressRange, llvm::StringRef) override {}
  void cfiChange(uint64_t, llvm::StringRef) override {}
  void stackWin(const StackWinRecord&, llvm::StringRef) override {}

  SymbolFileFacts facts;
  unsigned modules = 0;
};

// NAME_MAX of Linux file systems.
constexpr size_t kMaxNameBytes = 255;

std::vector<llvm::StringRef> components(llvm::StringRef path) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  path.split(parts, '/');
  return {parts.begin(), parts.end()};
}

UploadRefusal refuse(int status, std::string reason) {
  return UploadRefusal{status, std::move(reason)};
}

// The reason quoted in one line: control characters become '?', cut long.
std::string printable(llvm::StringRef text) {
  std::string out = text.take_front(200).str();
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return text.size() > 200 ? out + "..." : out;
}

// What the parser found, as the file's facts or a refusal.
std::optional<UploadRefusal> conclude(const SymbolTextParser& parser, FactsSink& sink,
                                      const std::string& what, SymbolFileFacts& facts) {
  const auto& problems = parser.problems();
  if (makesSymbolsCorrupt(problems)) {
    for (const SymbolFileProblem& problem : problems)
      if (problem.skipped)
        return refuse(422, what + ": line " + std::to_string(problem.line) + ": " +
                               printable(problem.message) + ": not a valid symbol file");
  }
  if (sink.modules == 0)
    return refuse(422, what + ": no MODULE line: not a symbol file");
  if (sink.modules > 1)
    return refuse(422, what + ": more than one MODULE line");
  SymbolFileFacts found = sink.facts;
  if (found.debug_file.empty() || found.debug_id.empty())
    return refuse(422, what + ": the MODULE line names no debug file or id");
  found.store_path =
      moduleRelativePath(found.debug_file, found.debug_id, found.code_file, found.code_id);
  if (checkClientPath(found.store_path))
    return refuse(422, what + ": its MODULE line gives no safe store path ('" +
                           printable(found.store_path) + "')");
  facts = std::move(found);
  return std::nullopt;
}

} // namespace

bool sameIgnoringCase(llvm::StringRef a, llvm::StringRef b) {
  return a.equals_insensitive(b);
}

std::optional<UploadRefusal> checkClientPath(const std::string& relative) {
  const auto* begin = reinterpret_cast<const llvm::UTF8*>(relative.data());
  bool utf8 = llvm::isLegalUTF8String(&begin, begin + relative.size());
  if (!utf8 || !isSafeRelativePath(relative))
    return refuse(400, "'" + printable(relative) +
                           "' is not a store path (empty, '.' or '..' components, a leading "
                           "'/', '\\\\', ':', control characters or not UTF-8)");
  // What a file system takes: a longer name would fail only when published.
  for (llvm::StringRef component : components(relative))
    if (component.size() > kMaxNameBytes)
      return refuse(400, "'" + printable(relative) + "' has a name longer than " +
                             std::to_string(kMaxNameBytes) + " bytes");
  return std::nullopt;
}

std::optional<UploadRefusal> checkSymbolText(llvm::StringRef text, const std::string& what,
                                             SymbolFileFacts& facts) {
  FactsSink sink;
  SymbolTextParser parser(sink, text.size());
  // Line by line, so that an overlong line is skipped as the reader would.
  while (!text.empty()) {
    size_t end = text.find('\n');
    llvm::StringRef line = text.take_front(end == llvm::StringRef::npos ? text.size() : end + 1);
    if (line.size() > limits::kMaxSymbolFileLine)
      parser.overlongLine();
    else
      parser.lines(line);
    text = text.drop_front(line.size());
  }
  return conclude(parser, sink, what, facts);
}

std::optional<UploadRefusal> checkSymbolFile(const std::string& local_path, const std::string& what,
                                             SymbolFileFacts& facts) {
  int fd = ::open(local_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return refuse(500, what + ": cannot read the spooled upload: " + std::strerror(errno));
  struct stat info = {};
  ::fstat(fd, &info);
  FactsSink sink;
  SymbolTextParser parser(sink, uint64_t(info.st_size));
  std::string pending;   // the start of a line not yet complete
  bool skipping = false; // inside an overlong line, up to its end
  std::vector<char> buffer(size_t(4) << 20);
  for (;;) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int error = errno;
      ::close(fd);
      return refuse(500, what + ": cannot read the spooled upload: " + std::strerror(error));
    }
    if (got == 0)
      break;
    llvm::StringRef chunk(buffer.data(), size_t(got));
    while (!chunk.empty()) {
      size_t newline = chunk.find('\n');
      if (skipping) {
        if (newline == llvm::StringRef::npos)
          break;
        skipping = false;
        chunk = chunk.drop_front(newline + 1);
        continue;
      }
      if (newline == llvm::StringRef::npos) {
        pending.append(chunk.data(), chunk.size());
        if (pending.size() > limits::kMaxSymbolFileLine) {
          parser.overlongLine();
          pending.clear();
          skipping = true;
        }
        break;
      }
      if (pending.empty()) {
        // As many whole lines as the chunk holds, at once.
        size_t last = chunk.rfind('\n');
        llvm::StringRef whole = chunk.take_front(last + 1);
        bool overlong = false;
        for (llvm::StringRef rest = whole; !rest.empty();) {
          size_t end = rest.find('\n');
          if (end > limits::kMaxSymbolFileLine)
            overlong = true;
          rest = rest.drop_front(end + 1);
        }
        if (!overlong) {
          parser.lines(whole);
          chunk = chunk.drop_front(whole.size());
          continue;
        }
      }
      pending.append(chunk.data(), newline + 1);
      chunk = chunk.drop_front(newline + 1);
      if (pending.size() - 1 > limits::kMaxSymbolFileLine)
        parser.overlongLine();
      else
        parser.lines(pending);
      pending.clear();
    }
  }
  ::close(fd);
  if (!pending.empty())
    parser.lines(pending);
  return conclude(parser, sink, what, facts);
}

std::optional<UploadRefusal> checkClaimedPath(const std::string& claimed,
                                              const SymbolFileFacts& facts) {
  auto want = components(facts.store_path), got = components(claimed);
  bool same = want.size() == 3 && got.size() == 3 && want[0] == got[0] &&
              sameIgnoringCase(want[1], got[1]) && want[2] == got[2];
  if (!same)
    return refuse(422, "'" + printable(claimed) + "' is not where its MODULE line puts it ('" +
                           printable(facts.store_path) + "')");
  return std::nullopt;
}

std::optional<UploadRefusal> checkClaimedModule(const std::string& debug_file,
                                                const DebugId& debug_id,
                                                const SymbolFileFacts& facts) {
  if (debug_file != facts.debug_file || !debug_id.sameBuild(facts.debug_id))
    return refuse(422, "the upload names " + printable(debug_file) + " " +
                           printable(debug_id.str()) + " but its MODULE line " +
                           printable(facts.debug_file) + " " + printable(facts.debug_id.str()));
  return std::nullopt;
}

} // namespace dumpsyms
