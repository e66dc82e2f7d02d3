#include "symtool/output.h"

#include <cstdio>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

namespace {

std::string percent(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return text;
}

} // namespace

std::string hex(uint64_t value) {
  return "0x" + llvm::utohexstr(value, /*LowerCase=*/true);
}

void printPrelinkCorrection(const PrelinkCorrection& c) {
  std::string recorded =
      c.recorded ? hex(*c.recorded) : "none (its symbol file has no INFO PT_DYNAMIC_OFFSET)";
  std::string shift = c.shift < 0   ? "-" + hex(0 - static_cast<uint64_t>(c.shift))
                      : c.shift > 0 ? "+" + hex(static_cast<uint64_t>(c.shift))
                                    : "0";
  std::string why = !c.recorded    ? " (nothing to compare with)"
                    : c.shift == 0 ? " (not prelinked)"
                                   : " (prelinked: offsets moved back by the difference)";
  std::fprintf(stderr, "symtool: %s: PT_DYNAMIC offset logged %s, recorded %s; shift %s%s\n",
               c.module.c_str(), hex(c.logged).c_str(), recorded.c_str(), shift.c_str(),
               why.c_str());
}

llvm::json::Array framesJson(const AddressInfo& info) {
  llvm::json::Array frames;
  for (const SourceFrame& frame : info.frames)
    frames.push_back(llvm::json::Object{{"function", frame.function},
                                        {"file", frame.file},
                                        {"line", static_cast<int64_t>(frame.line)}});
  return frames;
}

void printLookup(const std::string& module, uint64_t address, const AddressInfo& info, bool json) {
  if (json) {
    llvm::json::Object out{{"address", hex(address)}, {"module", module}};
    if (info.public_name) {
      out["public"] = *info.public_name;
      out["offset"] = hex(info.public_offset);
    } else {
      out["frames"] = framesJson(info);
    }
    std::string text;
    llvm::raw_string_ostream stream(text);
    stream << llvm::json::Value(std::move(out));
    stream.flush();
    std::printf("%s\n", text.c_str());
    return;
  }
  std::printf("%s %s\n", hex(address).c_str(), module.c_str());
  if (info.public_name)
    std::printf("    %s+%s\n", info.public_name->c_str(), hex(info.public_offset).c_str());
  else if (info.frames.empty())
    std::printf("    ??\n");
  for (const SourceFrame& frame : info.frames)
    std::printf("    %s at %s:%u%s\n", frame.function.c_str(),
                frame.file.empty() ? "??" : frame.file.c_str(), frame.line,
                frame.inlined ? " (inlined)" : "");
}

// A frame line as JSON: {"input"} plus, for a frame, what it is.
llvm::json::Object frameJson(llvm::StringRef line, const std::optional<ResolvedFrame>& frame) {
  llvm::json::Object out{{"input", line.str()}};
  if (frame) {
    out["module"] = frame->module;
    if (frame->offset)
      out["offset"] = hex(*frame->offset);
    if (frame->info.public_name) {
      out["public"] = *frame->info.public_name;
      out["public_offset"] = hex(frame->info.public_offset);
    }
    out["frames"] = framesJson(frame->info);
    if (!frame->problem.empty())
      out["unresolved"] = frame->problem;
  }
  return out;
}

void printJson(llvm::json::Object object) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << llvm::json::Value(std::move(object));
  stream.flush();
  std::printf("%s\n", text.c_str());
}

// One line of crash text written back: as it was, then what its frame is.
void printSymbolized(llvm::StringRef line, const std::optional<ResolvedFrame>& frame, bool json) {
  if (json) {
    printJson(frameJson(line, frame));
    return;
  }
  std::printf("%s\n", line.str().c_str());
  if (!frame)
    return;
  if (!frame->problem.empty())
    std::printf("    ?? (%s)\n", frame->problem.c_str());
  else if (frame->info.public_name)
    std::printf("    %s+%s\n", frame->info.public_name->c_str(),
                hex(frame->info.public_offset).c_str());
  for (const SourceFrame& f : frame->info.frames)
    std::printf("    %s at %s:%u%s\n", f.function.c_str(), f.file.empty() ? "??" : f.file.c_str(),
                f.line, f.inlined ? " (inlined)" : "");
}

void printStats(const std::string& path, const SymbolStats& s, bool json) {
  if (json) {
    llvm::json::Array largest;
    for (const auto& [name, size] : s.largest)
      largest.push_back(llvm::json::Object{{"name", name}, {"size", size}});
    printJson(llvm::json::Object{{"records", llvm::json::Object{{"FILE", s.files},
                                                                {"INLINE_ORIGIN", s.inline_origins},
                                                                {"FUNC", s.functions},
                                                                {"line", s.lines},
                                                                {"INLINE", s.inlines},
                                                                {"PUBLIC", s.publics},
                                                                {"STACK CFI INIT", s.cfi_frames},
                                                                {"STACK CFI", s.cfi_changes},
                                                                {"STACK WIN", s.stack_win}}},
                                 {"bytes", llvm::json::Object{{"code", s.code_bytes},
                                                              {"function", s.function_bytes},
                                                              {"line", s.line_bytes},
                                                              {"cfi", s.cfi_bytes}}},
                                 {"largest", std::move(largest)}});
    return;
  }
  std::printf("%s\n", path.c_str());
  std::printf("  records: %llu FILE, %llu INLINE_ORIGIN, %llu FUNC, %llu line, %llu INLINE, "
              "%llu PUBLIC, %llu STACK CFI INIT, %llu STACK CFI, %llu STACK WIN\n",
              (unsigned long long)s.files, (unsigned long long)s.inline_origins,
              (unsigned long long)s.functions, (unsigned long long)s.lines,
              (unsigned long long)s.inlines, (unsigned long long)s.publics,
              (unsigned long long)s.cfi_frames, (unsigned long long)s.cfi_changes,
              (unsigned long long)s.stack_win);
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
