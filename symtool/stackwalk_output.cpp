#include "symtool/stackwalk_output.h"

#include "symtool/output.h"

#include <cstdio>
#include <cstring>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

namespace {

llvm::json::Value orNull(const std::string& text) {
  return text.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(text);
}

llvm::json::Object frameJson(const ResolvedStackFrame& frame) {
  llvm::json::Object object{
      {"address", hex(frame.address)},
      {"module", orNull(frame.module)},
      {"offset", frame.offset ? llvm::json::Value(hex(*frame.offset)) : nullptr},
      {"trust", trustName(frame.trust)},
      {"function", orNull(frame.function)},
      {"file", orNull(frame.file)},
      {"line", frame.line ? llvm::json::Value(int64_t(frame.line)) : nullptr},
      {"inlined", frame.inlined},
  };
  if (frame.from_public)
    object["function_offset"] = hex(frame.function_offset);
  return object;
}

std::string signalName(int signal) {
  if (signal == 0)
    return "";
  const char* name = sigabbrev_np(signal);
  return name ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

void printJsonCore(const WalkedCore& core) {
  llvm::json::Array threads;
  for (const WalkedThread& thread : core.threads) {
    llvm::json::Array frames;
    for (const ResolvedStackFrame& frame : thread.frames)
      frames.push_back(frameJson(frame));
    threads.push_back(
        llvm::json::Object{{"tid", int64_t(thread.tid)},
                           {"crashed", thread.crashed},
                           {"signal", orNull(thread.crashed ? signalName(thread.signal) : "")},
                           {"frames", std::move(frames)},
                           {"end", thread.end}});
  }
  llvm::json::Array modules;
  for (const CoreModule& module : core.modules) {
    llvm::json::Object object{{"name", orNull(module.name)},
                              {"path", orNull(module.path)},
                              {"base", hex(module.base)},
                              {"end", hex(module.end)},
                              {"debug_id", orNull(module.debug_id)},
                              {"build_id", orNull(module.build_id)}};
    for (const auto& [name, why] : core.missing_symbols)
      if (name == (module.name.empty() ? module.debug_id : module.name))
        object["missing_symbols"] = why;
    modules.push_back(std::move(object));
  }
  llvm::json::Array warnings;
  for (const std::string& warning : core.warnings)
    warnings.push_back(warning);
  printJson(llvm::json::Object{{"threads", std::move(threads)},
                               {"modules", std::move(modules)},
                               {"warnings", std::move(warnings)}});
}

} // namespace

void printWalkedCore(const WalkedCore& core, bool json) {
  if (json) {
    printJsonCore(core);
    return;
  }
  for (const std::string& warning : core.warnings)
    std::fprintf(stderr, "symtool: warning: %s\n", warning.c_str());
  bool first = true;
  for (const WalkedThread& thread : core.threads) {
    std::printf("%sThread %u%s%s\n", first ? "" : "\n", thread.tid,
                thread.crashed ? " (crashed)" : "",
                thread.crashed && thread.signal ? (" " + signalName(thread.signal)).c_str() : "");
    first = false;
    size_t number = 0;
    for (size_t i = 0; i < thread.frames.size(); ++i) {
      const ResolvedStackFrame& frame = thread.frames[i];
      std::string where = frame.module.empty()
                              ? hex(frame.address)
                              : frame.module + " + " + hex(frame.offset.value_or(0));
      std::string what = frame.function.empty() ? "??" : frame.function;
      if (frame.from_public)
        what += " + " + hex(frame.function_offset);
      if (!frame.file.empty())
        what +=
            " at " + llvm::sys::path::filename(frame.file).str() + ":" + std::to_string(frame.line);
      std::printf(" #%-3zu %-18s %s  %s%s\n", number, hex(frame.address).c_str(), where.c_str(),
                  what.c_str(), frame.inlined ? " (inlined)" : "");
      if (!frame.inlined)
        std::printf("      found by %s\n", trustName(frame.trust));
      ++number;
    }
    std::printf("      (%s)\n", thread.end.c_str());
  }
  if (!core.missing_symbols.empty()) {
    std::printf("\nModules without symbols in the store:\n");
    for (const auto& [name, why] : core.missing_symbols)
      std::printf("  %s: %s\n", name.c_str(), why.c_str());
  }
}

} // namespace dumpsyms
