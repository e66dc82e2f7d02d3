// Our JSON form. Threads (the requesting one first), frames, modules and
// warnings as `symtool stackwalk --json` has always written them for
// cores, and what a minidump adds: the system, the crash, thread names,
// each module's identity, version and symbol status, unloaded modules.
#include "common/json/json_text.h"
#include "walk/printers/crash_reason.h"
#include "walk/printers/json_values.h"
#include "walk/printers/system_text.h"
#include "walk/printers/walk_json_words.h"
#include "walk/printers/walk_printers.h"

#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace dumpsyms {

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Object frameJson(const ResolvedStackFrame& frame) {
  Object object{
      {"address", hexAddress(frame.address)},
      {"module", orNull(frame.module_name)},
      {"offset", frame.offset ? Value(hexAddress(*frame.offset)) : Value(nullptr)},
      {"trust", frameTrustName(frame)},
      {"function", orNull(frame.function)},
      {"file", orNull(frame.file)},
      {"line", frame.line ? Value(int64_t(frame.line)) : Value(nullptr)},
      {"inlined", frame.inlined},
  };
  if (frame.from_public && frame.function_base)
    object["function_offset"] = hexAddress(frame.address - *frame.function_base);
  return object;
}

// "KEY=value" (lsb-release) or "Key:\tvalue" (proc status) lines.
Object keyValues(llvm::StringRef text, char separator) {
  Object out;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    auto [key, value] = line.split(separator);
    key = key.trim();
    value = value.trim();
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.drop_front().drop_back();
    if (!key.empty())
      out[key.str()] = value.str(); // owned: the document may outlive the snapshot
  }
  return out;
}

Array nulSeparated(llvm::StringRef text) {
  Array out;
  while (!text.empty()) {
    auto [item, rest] = text.split('\0');
    out.push_back(item.str());
    text = rest;
  }
  return out;
}

// The Linux streams Breakpad's client adds, read into what they say:
// lsb-release and proc status as keys and values, the command line and
// environment as lists, auxv as its (type, value) pairs, cpuinfo as text.
Value linuxJson(const ProcessSnapshot& snapshot) {
  const auto& streams = snapshot.linux_streams;
  if (streams.empty())
    return nullptr;
  Object out;
  auto text = [&](const char* name) -> std::optional<llvm::StringRef> {
    auto found = streams.find(name);
    if (found == streams.end())
      return std::nullopt;
    return llvm::StringRef(found->second);
  };
  if (auto lsb = text("lsb_release"))
    out["lsb_release"] = keyValues(*lsb, '=');
  if (auto status = text("status"))
    out["status"] = keyValues(*status, ':');
  if (auto cmdline = text("cmdline"))
    out["cmdline"] = nulSeparated(*cmdline);
  if (auto environ = text("environ"))
    out["environ"] = nulSeparated(*environ);
  if (auto cpuinfo = text("cpuinfo"))
    out["cpuinfo"] = cpuinfo->str();
  if (auto auxv = text("auxv")) {
    unsigned word = wordSize(snapshot.cpu) ? wordSize(snapshot.cpu) : 8;
    Array pairs;
    for (size_t at = 0; at + 2 * word <= auxv->size(); at += 2 * word) {
      uint64_t type = 0, value = 0;
      std::memcpy(&type, auxv->data() + at, word);
      std::memcpy(&value, auxv->data() + at + word, word);
      if (type == 0)
        break; // AT_NULL
      pairs.push_back(Array{int64_t(type), hexAddress(value)});
    }
    out["auxv"] = std::move(pairs);
  }
  return out;
}

} // namespace

const char* frameTrustName(const ResolvedStackFrame& frame) {
  return trustName(frame.inlined ? FrameTrust::Inline : frame.trust);
}

const char* symbolStatusName(const ModuleSymbolStatus& status) {
  if (!status.looked_up)
    return "not needed";
  if (status.status == SymbolStatus::Loaded)
    return status.corrupt ? "corrupt" : "loaded";
  return status.status == SymbolStatus::Corrupt ? "corrupt" : "missing";
}

std::string threadSignalName(const ProcessWalk& walk, const WalkedThread& thread) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  if (!thread.crashed)
    return "";
  if (snapshot.format == "core")
    return signalName(thread.signal);
  bool linux_like =
      snapshot.system.os == SnapshotOs::Linux || snapshot.system.os == SnapshotOs::Android;
  return snapshot.crash && linux_like ? signalName(int(snapshot.crash->code)) : "";
}

llvm::json::Value walkJson(const ProcessWalk& walk) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  std::vector<const WalkedThread*> order = requestingFirst(walk);
  Array threads;
  for (const WalkedThread* thread : order) {
    Array frames;
    for (const ResolvedStackFrame& frame : thread->frames)
      frames.push_back(frameJson(frame));
    std::string signal = threadSignalName(walk, *thread);
    threads.push_back(Object{{"tid", int64_t(thread->tid)},
                             {"name", orNull(thread->name)},
                             {"crashed", thread->crashed},
                             {"requesting", thread->requesting},
                             {"signal", orNull(signal)},
                             {"frames", std::move(frames)},
                             {"end", thread->end}});
  }
  Array modules;
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    Object object{{"name", orNull(pathFileName(module.code_file))},
                  {"path", orNull(module.code_file)},
                  {"base", hexAddress(module.base)},
                  {"end", hexAddress(module.end())},
                  {"debug_file", orNull(pathFileName(module.debug_file))},
                  {"debug_id", orNull(module.debug_id.str())},
                  {"code_id", orNull(module.code_id.str())},
                  {"build_id", orNull(module.build_id.hex())},
                  {"version", orNull(module.version)},
                  {"symbols", symbolStatusName(status)}};
    if (status.looked_up && status.status != SymbolStatus::Loaded)
      object["missing_symbols"] = status.problem;
    if (!status.path.empty())
      object["symbol_file"] = status.path;
    modules.push_back(std::move(object));
  }
  Array unloaded;
  for (const SnapshotModule& module : snapshot.unloaded_modules)
    unloaded.push_back(Object{{"name", orNull(pathFileName(module.code_file))},
                              {"path", orNull(module.code_file)},
                              {"base", hexAddress(module.base)},
                              {"end", hexAddress(module.end())},
                              {"code_id", orNull(module.code_id.str())}});
  Array warnings;
  for (const std::string& warning : snapshot.warnings)
    warnings.push_back(warning);
  SystemText system = systemText(snapshot);
  Object document{
      {"format", snapshot.format},
      {"threads", std::move(threads)},
      {"modules", std::move(modules)},
      {"unloaded_modules", std::move(unloaded)},
      {"warnings", std::move(warnings)},
      {"system", Object{{"os", orNull(system.os)},
                        {"os_version", orNull(system.os_version)},
                        {"cpu", orNull(system.cpu.empty() ? cpuName(snapshot.cpu) : system.cpu)},
                        {"cpu_info", orNull(system.cpu_info)},
                        {"cpu_count", int64_t(system.cpu_count)}}}};
  if (snapshot.crash) {
    Array parameters;
    for (uint64_t parameter : snapshot.crash->parameters)
      parameters.push_back(hexAddress(parameter));
    document["crash"] = Object{{"reason", crashReason(snapshot)},
                               {"address", hexAddress(crashAddress(snapshot))},
                               {"thread", int64_t(snapshot.crash->thread_id)},
                               {"parameters", std::move(parameters)}};
  } else {
    document["crash"] = nullptr;
  }
  document["assertion"] = orNull(assertionText(snapshot));
  Array annotations;
  for (const auto& [name, value] : snapshot.annotations)
    annotations.push_back(Object{{"name", name}, {"value", value}});
  document["annotations"] = std::move(annotations);
  document["linux"] = linuxJson(snapshot);
  document["pid"] = snapshot.pid ? Value(int64_t(*snapshot.pid)) : Value(nullptr);
  bool uptime = snapshot.process_create_time && snapshot.dump_time &&
                *snapshot.process_create_time &&
                *snapshot.dump_time >= *snapshot.process_create_time;
  document["process_uptime"] =
      uptime ? Value(int64_t(*snapshot.dump_time - *snapshot.process_create_time)) : Value(nullptr);
  return Value(std::move(document));
}

void printWalkJson(const ProcessWalk& walk, std::FILE* out) {
  printJsonLine(out, walkJson(walk));
}

} // namespace dumpsyms
