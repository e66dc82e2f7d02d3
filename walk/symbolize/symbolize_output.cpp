#include "walk/symbolize/symbolize_output.h"

#include "common/json/json_text.h"

#include <cstdio>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

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
    printJsonLine(stdout, llvm::json::Value(std::move(out)));
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
  printJsonLine(stdout, llvm::json::Value(std::move(object)));
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

} // namespace dumpsyms
