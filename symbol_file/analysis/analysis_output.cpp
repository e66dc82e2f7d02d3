#include "symbol_file/analysis/analysis_output.h"

#include "common/json/json_text.h"

#include <cstdio>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace dumpsyms {

namespace {

std::string percent(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return text;
}

} // namespace

void printStats(const std::string& path, const SymbolStats& s, bool json) {
  if (json) {
    llvm::json::Array largest;
    for (const auto& [name, size] : s.largest)
      largest.push_back(llvm::json::Object{{"name", name}, {"size", size}});
    llvm::json::Object records;
    for (const RecordKind& kind : kRecordKinds)
      records[kind.name] = s.records.*kind.count;
    printJsonLine(stdout,
                  llvm::json::Object{{"records", std::move(records)},
                                     {"bytes", llvm::json::Object{{"code", s.code_bytes},
                                                                  {"function", s.function_bytes},
                                                                  {"line", s.line_bytes},
                                                                  {"cfi", s.cfi_bytes}}},
                                     {"largest", std::move(largest)}});
    return;
  }
  std::printf("%s\n", path.c_str());
  std::string records;
  for (const RecordKind& kind : kRecordKinds)
    records +=
        (records.empty() ? "" : ", ") + std::to_string(s.records.*kind.count) + " " + kind.name;
  std::printf("  records: %s\n", records.c_str());
  std::printf("  code known to the file: %llu bytes (FUNC, STACK CFI and STACK WIN ranges)\n",
              (unsigned long long)s.code_bytes);
  std::printf("  in a FUNC: %s, in a line record: %s, in STACK CFI: %s\n",
              percent(s.function_bytes, s.code_bytes).c_str(),
              percent(s.line_bytes, s.code_bytes).c_str(),
              percent(s.cfi_bytes, s.code_bytes).c_str());
  std::printf("  largest functions:\n");
  for (const auto& [name, size] : s.largest)
    std::printf("    %10llu  %s\n", (unsigned long long)size, name.c_str());
}

void printDiff(const SymbolDiff& d) {
  if (d.header_differs)
    std::printf("MODULE or INFO CODE_ID differs\n");
  for (const std::string& name : d.added)
    std::printf("+ %s\n", name.c_str());
  for (const std::string& name : d.removed)
    std::printf("- %s\n", name.c_str());
  for (const FunctionMove& m : d.moved)
    std::printf("~ %s moved from 0x%llx to 0x%llx\n", m.name.c_str(), (unsigned long long)m.from,
                (unsigned long long)m.to);
  for (const std::string& name : d.lines_changed)
    std::printf("! %s: line records changed\n", name.c_str());
  std::fprintf(stderr, "symtool: %zu added, %zu removed, %zu moved, %zu with other lines%s\n",
               d.added.size(), d.removed.size(), d.moved.size(), d.lines_changed.size(),
               d.header_differs ? ", another module header" : "");
}

} // namespace dumpsyms
