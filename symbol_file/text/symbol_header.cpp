#include "symbol_file/text/symbol_header.h"

#include "common/errors/file_error.h"
#include "common/limits/input_limits.h"

#include <algorithm>
#include <fstream>
#include <llvm/Support/raw_ostream.h>

namespace dumpsyms {

char SymbolHeaderError::ID = 0;

void SymbolHeaderError::log(llvm::raw_ostream& out) const {
  switch (problem_) {
  case Problem::NoModuleLine:
    out << "does not start with a MODULE line";
    break;
  case Problem::IncompleteModuleLine:
    out << "has a MODULE line without os, cpu, id and name";
    break;
  case Problem::ControlBytes:
    out << "has control bytes in its MODULE line";
    break;
  }
}

std::error_code SymbolHeaderError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

namespace {

// Whether `text` holds a byte no reader should be handed: NUL and the
// other control bytes (a tab is allowed: some generators write one).
bool hasControlBytes(llvm::StringRef text) {
  return llvm::any_of(text, [](char c) {
    unsigned char byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

// The next space-separated field of `line` (consumed), "" when none: the
// full parser's rule (one space between fields, the last takes the rest).
llvm::StringRef takeField(llvm::StringRef& line) {
  auto [field, rest] = line.split(' ');
  line = rest;
  return field;
}

// The complete lines of `head` (without '\n' and a trailing '\r').
std::vector<llvm::StringRef> completeLines(llvm::StringRef head) {
  std::vector<llvm::StringRef> lines;
  bool whole_file = head.size() < limits::kSymbolHeaderBytes;
  while (!head.empty()) {
    size_t end = head.find('\n');
    if (end == llvm::StringRef::npos && !whole_file)
      break; // cut by the read: not a line to trust
    lines.push_back(head.take_front(end).rtrim('\r'));
    head = end == llvm::StringRef::npos ? llvm::StringRef() : head.drop_front(end + 1);
  }
  return lines;
}

llvm::Error problem(SymbolHeaderError::Problem kind) {
  return llvm::make_error<SymbolHeaderError>(kind);
}

} // namespace

SymbolFileHeader headerOf(const Module& module) {
  return {module.os,      module.cpu,       module.debug_id,  module.name,
          module.code_id, module.code_file, module.extra_info};
}

bool startsAsSymbolFile(llvm::StringRef bytes) {
  return bytes.starts_with("MODULE ");
}

llvm::Expected<SymbolFileHeader> parseSymbolFileHeader(llvm::StringRef head) {
  std::vector<llvm::StringRef> lines = completeLines(head);
  if (lines.empty() || !lines[0].starts_with("MODULE "))
    return problem(SymbolHeaderError::Problem::NoModuleLine);
  llvm::StringRef module = lines[0].drop_front(7);
  if (hasControlBytes(module))
    return problem(SymbolHeaderError::Problem::ControlBytes);
  SymbolFileHeader header;
  header.os = takeField(module).str();
  header.cpu = takeField(module).str();
  header.debug_id = DebugId(takeField(module).str());
  header.debug_file = module.str();
  if (header.os.empty() || header.cpu.empty() || header.debug_id.empty() ||
      header.debug_file.empty())
    return problem(SymbolHeaderError::Problem::IncompleteModuleLine);

  for (size_t i = 1; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    if (!line.consume_front("INFO "))
      break; // INFO lines follow MODULE; the records start here
    if (line.size() > limits::kMaxHeaderInfoLine || hasControlBytes(line))
      continue;
    if (line.consume_front("CODE_ID ")) {
      if (!header.code_id.empty())
        continue; // the first one is the module's
      header.code_id = CodeId(takeField(line).str());
      if (!header.code_id.empty())
        header.code_file = line.str();
      continue;
    }
    if (header.info.size() < limits::kMaxHeaderInfoLines)
      header.info.push_back(line.str());
  }
  return header;
}

llvm::Expected<SymbolFileHeader> readSymbolFileHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fileError(path, "cannot read it");
  std::string head(limits::kSymbolHeaderBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return parseSymbolFileHeader(head);
}

} // namespace dumpsyms
