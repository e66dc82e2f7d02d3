// rust-minidump's JSON (`minidump-stackwalk --json`, its json-schema.md),
// so that a pipeline built on it (Socorro, Sentry-style back ends) can switch:
// its keys, its conventions -- hex strings padded to the pointer width,
// offsets of caller frames at the instruction before the return address
// (return address - 1 on x86, - 2 on arm, - 4 on arm64, - 8 on mips, as its
// walker takes them), end_addr exclusive, inlined calls folded into their
// physical frame as `inlines` (innermost first), the crashing thread copied
// with its registers -- and its choice of null for what the dump lacks.
// Code ids and crash types follow its rules, not Breakpad's
// (rust_minidump_rules.h).
#include "common/json/json_text.h"
#include "walk/printers/crash_reason.h"
#include "walk/printers/json_values.h"
#include "walk/printers/rust_minidump_rules.h"
#include "walk/printers/system_text.h"
#include "walk/printers/walk_printers.h"

#include <algorithm>
#include <cinttypes>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>
#include <optional>
#include <vector>

namespace dumpsyms {

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

// "0x" and the value padded to the pointer width (16 digits when unknown).
struct Hex {
  unsigned digits;
  std::string operator()(uint64_t value) const {
    char text[24];
    std::snprintf(text, sizeof text, "0x%0*" PRIx64, int(digits), value);
    return text;
  }
};

// Our trust names are rust-minidump's, but for a return simulated from a
// leaf (the context's own registers, no memory read: "context").
const char* trustOf(const ResolvedStackFrame& frame) {
  return frame.trust == FrameTrust::Leaf ? "context" : trustName(frame.trust);
}

// rust-minidump's register names for the CPU, in its order, and ours for
// each (Breakpad's: "$rax", "x29", ...).
std::vector<std::pair<const char*, const char*>> registerNames(SnapshotCpu cpu) {
  switch (cpu) {
  case SnapshotCpu::X86:
    return {{"eip", "$eip"}, {"esp", "$esp"},      {"ebp", "$ebp"}, {"ebx", "$ebx"},
            {"esi", "$esi"}, {"edi", "$edi"},      {"eax", "$eax"}, {"ecx", "$ecx"},
            {"edx", "$edx"}, {"eflags", "$eflags"}};
  case SnapshotCpu::Amd64:
    return {{"rax", "$rax"}, {"rdx", "$rdx"}, {"rcx", "$rcx"}, {"rbx", "$rbx"}, {"rsi", "$rsi"},
            {"rdi", "$rdi"}, {"rbp", "$rbp"}, {"rsp", "$rsp"}, {"r8", "$r8"},   {"r9", "$r9"},
            {"r10", "$r10"}, {"r11", "$r11"}, {"r12", "$r12"}, {"r13", "$r13"}, {"r14", "$r14"},
            {"r15", "$r15"}, {"rip", "$rip"}};
  case SnapshotCpu::Arm:
    return {{"r0", "r0"},  {"r1", "r1"}, {"r2", "r2"}, {"r3", "r3"}, {"r4", "r4"},   {"r5", "r5"},
            {"r6", "r6"},  {"r7", "r7"}, {"r8", "r8"}, {"r9", "r9"}, {"r10", "r10"}, {"r12", "r12"},
            {"fp", "r11"}, {"sp", "sp"}, {"lr", "lr"}, {"pc", "pc"}};
  case SnapshotCpu::Arm64: {
    static const char* const x[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
                                    "x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
                                    "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
                                    "x24", "x25", "x26", "x27", "x28"};
    std::vector<std::pair<const char*, const char*>> names;
    for (const char* name : x)
      names.push_back({name, name});
    names.insert(names.end(), {{"fp", "x29"}, {"lr", "x30"}, {"sp", "sp"}, {"pc", "pc"}});
    return names;
  }
  case SnapshotCpu::Mips:
  case SnapshotCpu::Mips64:
    return {{"gp", "gp"}, {"sp", "sp"}, {"fp", "fp"}, {"ra", "ra"}, {"pc", "pc"},
            {"s0", "s0"}, {"s1", "s1"}, {"s2", "s2"}, {"s3", "s3"}, {"s4", "s4"},
            {"s5", "s5"}, {"s6", "s6"}, {"s7", "s7"}};
  default:
    return {};
  }
}

Object registersJson(const ProcessSnapshot& snapshot, const RegisterValues& values, Hex hex) {
  Object out;
  auto names = registerNames(snapshot.cpu);
  if (names.empty()) // a CPU rust-minidump has no list for: every register we hold
    for (const auto& [name, value] : values)
      out[llvm::StringRef(name).ltrim('$')] = hex(value);
  for (const auto& [theirs, ours] : names)
    if (auto found = values.find(ours); found != values.end())
      out[theirs] = hex(found->second);
  return out;
}

// The lsb-release stream (DISTRIB_ID=...) or an os-release file (ID=...).
Value lsbRelease(const ProcessSnapshot& snapshot) {
  auto stream = snapshot.linux_streams.find("lsb_release");
  if (stream == snapshot.linux_streams.end())
    return nullptr;
  std::map<std::string, std::string> fields;
  llvm::StringRef text(stream->second);
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    auto [key, value] = line.split('=');
    value = value.trim();
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.drop_front().drop_back();
    fields[key.trim().str()] = value.str();
  }
  auto field = [&](const char* lsb, const char* os_release) -> Value {
    if (auto found = fields.find(lsb); found != fields.end())
      return found->second;
    if (auto found = fields.find(os_release); found != fields.end())
      return found->second;
    return nullptr;
  };
  return Object{{"id", field("DISTRIB_ID", "ID")},
                {"release", field("DISTRIB_RELEASE", "VERSION_ID")},
                {"codename", field("DISTRIB_CODENAME", "VERSION_CODENAME")},
                {"description", field("DISTRIB_DESCRIPTION", "PRETTY_NAME")}};
}

// One physical frame with the inlined calls (innermost first) before it.
Object frameJson(const ProcessWalk& walk, const std::vector<const ResolvedStackFrame*>& inlines,
                 const ResolvedStackFrame& frame, size_t index, Hex hex) {
  const SnapshotModule* module = frame.module && !frame.unloaded ? frame.module : nullptr;
  Object out{{"frame", int64_t(index)},
             {"module", module ? orNull(frame.module_name) : Value(nullptr)},
             {"function", orNull(frame.function)},
             {"file", orNull(frame.file)},
             {"line", frame.line ? Value(int64_t(frame.line)) : Value(nullptr)},
             {"offset", hex(frame.instruction)},
             {"module_offset", module ? Value(hex(frame.instruction - module->base)) : nullptr},
             {"function_offset", frame.function_base && !frame.function.empty()
                                     ? Value(hex(frame.instruction - *frame.function_base))
                                     : Value(nullptr)},
             {"missing_symbols", frame.function.empty()},
             {"trust", trustOf(frame)}};
  if (inlines.empty()) {
    out["inlines"] = nullptr;
  } else {
    Array list;
    for (const ResolvedStackFrame* call : inlines)
      list.push_back(Object{{"function", orNull(call->function)},
                            {"file", orNull(call->file)},
                            {"line", call->line ? Value(int64_t(call->line)) : Value(nullptr)}});
    out["inlines"] = std::move(list);
  }
  if (frame.unloaded && frame.module)
    out["unloaded_modules"] =
        Array{Object{{"module", pathFileName(frame.module->code_file)},
                     {"offsets", Array{hex(frame.instruction - frame.module->base)}}}};
  else
    out["unloaded_modules"] = nullptr;
  (void)walk;
  return out;
}

Object threadJson(const ProcessWalk& walk, const WalkedThread& thread, Hex hex) {
  Array frames;
  std::vector<const ResolvedStackFrame*> inlines;
  for (const ResolvedStackFrame& frame : thread.frames) {
    if (frame.inlined) {
      inlines.push_back(&frame);
      continue;
    }
    frames.push_back(frameJson(walk, inlines, frame, frames.size(), hex));
    inlines.clear();
  }
  size_t count = frames.size();
  return Object{{"frame_count", int64_t(count)},
                {"last_error_value", nullptr},
                {"thread_name", orNull(thread.name)},
                {"thread_id", int64_t(thread.tid)},
                {"frames", std::move(frames)}};
}

} // namespace

void printWalkRustMinidump(const ProcessWalk& walk, std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  Hex hex{wordSize(snapshot.cpu) == 4 ? 8u : 16u};
  SystemText system = systemText(snapshot);

  // Every thread of the file, in its order, as rust-minidump lists them:
  // the one that wrote the dump (which the walk leaves out, as Breakpad
  // does) is listed without frames and counted. The crashing thread's index
  // is its place in this list. (Walked threads the file does not hold, as
  // a walk made by hand may have, follow in the walk's order.)
  Array threads;
  std::optional<size_t> crashing;
  std::vector<bool> listed(walk.threads.size(), false);
  auto list = [&](size_t walked) {
    if (walk.requesting && walked == *walk.requesting)
      crashing = threads.size();
    threads.push_back(threadJson(walk, walk.threads[walked], hex));
    listed[walked] = true;
  };
  for (const SnapshotThread& source : snapshot.threads) {
    auto walked =
        std::find_if(walk.threads.begin(), walk.threads.end(),
                     [&](const WalkedThread& thread) { return thread.source == &source; });
    if (walked != walk.threads.end()) {
      list(size_t(walked - walk.threads.begin()));
      continue;
    }
    threads.push_back(Object{{"frame_count", int64_t(0)},
                             {"last_error_value", nullptr},
                             {"thread_name", orNull(source.name)},
                             {"thread_id", int64_t(source.id)},
                             {"frames", Array{}}});
  }
  for (size_t i = 0; i < walk.threads.size(); ++i)
    if (!listed[i])
      list(i);

  Array modules;
  std::optional<size_t> main_module;
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    if (snapshot.main_module_base && module.base == *snapshot.main_module_base && !main_module)
      main_module = modules.size();
    bool loaded = status.looked_up && status.status == SymbolStatus::Loaded;
    // Missing only where symbols were looked for: with no store given,
    // nothing was (rust-minidump keeps no statistics without a source).
    bool tried = status.looked_up && walk.symbols_given;
    modules.push_back(
        Object{{"base_addr", hex(module.base)},
               {"end_addr", hex(module.end())},
               {"debug_file", pathFileName(module.debug_file)},
               {"debug_id", module.debug_id.str()},
               {"filename", pathFileName(module.code_file)},
               {"code_id", rustCodeId(module, snapshot.system.os)},
               {"version", orNull(module.version)},
               {"cert_subject", nullptr},
               {"missing_symbols", tried && !loaded},
               {"loaded_symbols", loaded},
               {"corrupt_symbols",
                status.looked_up && (status.corrupt || status.status == SymbolStatus::Corrupt)},
               {"symbol_url", status.symbols ? orNull(status.symbols->url) : Value(nullptr)}});
  }
  Array unloaded;
  for (const SnapshotModule& module : snapshot.unloaded_modules)
    unloaded.push_back(Object{{"base_addr", hex(module.base)},
                              {"code_id", rustUnloadedCodeId(module)},
                              {"end_addr", hex(module.end())},
                              {"filename", pathFileName(module.code_file)},
                              {"cert_subject", nullptr}});

  Object crash_info{{"type", nullptr},
                    {"address", nullptr},
                    {"adjusted_address", nullptr},
                    {"instruction", nullptr},
                    {"memory_accesses", nullptr},
                    {"instruction_pointer_update", nullptr},
                    {"possible_bit_flips", nullptr},
                    {"crash_inconsistencies", nullptr},
                    {"crashing_thread", crashing ? Value(int64_t(*crashing)) : Value(nullptr)},
                    {"assertion", orNull(assertionText(snapshot))}};
  if (snapshot.crash) {
    crash_info["type"] = rustCrashType(snapshot);
    crash_info["address"] = hex(crashAddress(snapshot));
    crash_info["crash_inconsistencies"] = Array{};
  }
  bool uptime = snapshot.process_create_time && snapshot.dump_time &&
                *snapshot.process_create_time &&
                *snapshot.dump_time >= *snapshot.process_create_time;
  auto maps = snapshot.linux_streams.find("maps");
  Value map_count = nullptr;
  if (maps != snapshot.linux_streams.end())
    map_count = int64_t(llvm::StringRef(maps->second).count('\n'));

  Object document{{"status", "OK"},
                  {"system_info", Object{{"os", orNull(system.os)},
                                         {"os_ver", orNull(system.os_version)},
                                         {"cpu_arch", snapshot.cpu == SnapshotCpu::Unknown
                                                          ? std::string("unknown")
                                                          : std::string(cpuName(snapshot.cpu))},
                                         {"cpu_info", orNull(system.cpu_info)},
                                         {"cpu_count", int64_t(system.cpu_count)},
                                         {"cpu_microcode_version", nullptr}}},
                  {"crash_info", std::move(crash_info)},
                  {"lsb_release", lsbRelease(snapshot)},
                  {"proc_limits", nullptr},
                  {"soft_errors", nullptr},
                  {"mac_crash_info", nullptr},
                  {"mac_boot_args", nullptr},
                  {"linux_memory_map_count", std::move(map_count)},
                  {"main_module", main_module ? Value(int64_t(*main_module)) : Value(nullptr)},
                  {"modules_contains_cert_info", false},
                  {"modules", std::move(modules)},
                  {"pid", snapshot.pid ? Value(int64_t(*snapshot.pid)) : Value(nullptr)},
                  {"process_uptime",
                   uptime ? Value(int64_t(*snapshot.dump_time - *snapshot.process_create_time))
                          : Value(nullptr)},
                  {"thread_count", int64_t(threads.size())},
                  {"threads", Array{}},
                  {"unloaded_modules", std::move(unloaded)},
                  {"handles", nullptr}};

  // The requesting thread again, with its index and frame 0's registers.
  if (walk.requesting && !walk.threads[*walk.requesting].frames.empty()) {
    const WalkedThread& thread = walk.threads[*walk.requesting];
    Object copy = threadJson(walk, thread, hex);
    copy["threads_index"] = crashing ? Value(int64_t(*crashing)) : Value(nullptr);
    const ResolvedStackFrame* first = nullptr;
    for (const ResolvedStackFrame& frame : thread.frames)
      if (!frame.inlined) {
        first = &frame;
        break;
      }
    if (auto* frames = copy.getArray("frames"); frames && !frames->empty() && first)
      (*frames)[0].getAsObject()->try_emplace("registers",
                                              registersJson(snapshot, first->registers, hex));
    document["crashing_thread"] = std::move(copy);
  }
  document["threads"] = std::move(threads);

  printJsonLine(out, Value(std::move(document)));
}

} // namespace dumpsyms
