// ThreadList, ThreadNameList and Exception (whose context replaces the
// crashing thread's).
#include "common/errors/file_error.h"
#include "common/limits/input_limits.h"
#include "walk/minidump/stream_reader.h"

#include <algorithm>
#include <llvm/Support/Endian.h>

namespace dumpsyms::minidump_streams {

llvm::Error StreamReader::readThreads() {
  std::vector<const MinidumpStream*> lists = directory_.all(kThreadList);
  if (lists.empty())
    return fileError(out_.path, "has no thread list (no ThreadList stream): nothing to walk");
  if (lists.size() > 1)
    warn(plural(lists.size(), "ThreadList stream", "ThreadList streams") + "; the first one read");
  uint64_t first = 0;
  uint64_t count = listEntries(*lists.front(), sizeof(md::Thread), limits::kMaxMinidumpThreads,
                               "thread list", first);
  for (uint64_t i = 0; i < count; ++i) {
    md::Thread thread;
    std::memcpy(static_cast<void*>(&thread),
                lists.front()->bytes.data() + first + i * sizeof(md::Thread), sizeof thread);
    SnapshotThread out;
    out.id = thread.ThreadId;
    std::string whose = "thread " + std::to_string(out.id);
    if (std::optional<DecodedContext> decoded = context(thread.Context, whose)) {
      ++context_cpus_[decoded->cpu];
      if (out_.cpu == SnapshotCpu::Unknown)
        out_.cpu = decoded->cpu;
      if (decoded->cpu == out_.cpu)
        out.registers = std::move(decoded->registers);
      else
        warn(whose + ": a context for " + cpuName(decoded->cpu) + " in a dump of " +
             cpuName(out_.cpu) + "; its registers left out");
    }
    out.stack_start = thread.Stack.StartOfMemoryRange;
    out.stack_size = thread.Stack.Memory.DataSize;
    // A full-memory dump (Memory64List) may give the stack's range with no
    // bytes of its own (RVA 0): they are in the memory list.
    if (thread.Stack.Memory.RVA == 0) {
      out.stack_size = 0;
    } else if (auto stack = bytes_.at(thread.Stack.Memory.RVA, thread.Stack.Memory.DataSize)) {
      if (!stack->empty())
        out_.memory.add({out.stack_start, stack->size(), stack->size(),
                         reinterpret_cast<const uint8_t*>(stack->data())});
    } else {
      warn(whose + ": its stack memory runs past the end of the file; left out");
      out.stack_size = 0;
    }
    out_.threads.push_back(std::move(out));
  }
  // SystemInfo names a CPU the contexts are not for (lldb's can be
  // garbage): the contexts decide.
  if (!context_cpus_.empty() && !context_cpus_.count(out_.cpu)) {
    auto most = std::max_element(context_cpus_.begin(), context_cpus_.end(),
                                 [](auto& a, auto& b) { return a.second < b.second; });
    warn(std::string("SystemInfo names the CPU ") + cpuName(out_.cpu) +
         ", the thread contexts are " + cpuName(most->first) + "'s: read as " +
         cpuName(most->first));
    out_.cpu = most->first;
  }
  return llvm::Error::success();
}

void StreamReader::readThreadNames() {
  const MinidumpStream* stream = directory_.first(kThreadNameList);
  if (!stream)
    return;
  constexpr size_t kEntry = 12; // ThreadId, then a 64-bit RVA of the name, packed
  uint64_t first = 0;
  uint64_t count =
      listEntries(*stream, kEntry, limits::kMaxMinidumpThreads, "thread name list", first);
  std::map<uint32_t, std::string> names;
  size_t unreadable = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const char* entry = stream->bytes.data() + first + i * kEntry;
    std::optional<std::string> name = bytes_.string(read64le(entry + 4));
    if (name)
      names[read32le(entry)] = *name;
    else
      ++unreadable;
  }
  if (unreadable)
    warn(plural(unreadable, "thread name", "thread names") + " cannot be read");
  for (SnapshotThread& thread : out_.threads)
    if (auto name = names.find(thread.id); name != names.end())
      thread.name = name->second;
}

void StreamReader::readException() {
  std::vector<const MinidumpStream*> streams = directory_.all(kException);
  if (streams.empty())
    return;
  std::vector<md::ExceptionStream> read;
  for (const MinidumpStream* stream : streams) {
    if (stream->bytes.size() < sizeof(md::ExceptionStream)) {
      warn("an Exception stream is " + std::to_string(stream->bytes.size()) + " bytes, not " +
           std::to_string(sizeof(md::ExceptionStream)) + "; left out");
      continue;
    }
    md::ExceptionStream exception;
    std::memcpy(static_cast<void*>(&exception), stream->bytes.data(), sizeof exception);
    read.push_back(exception);
  }
  if (read.empty())
    return;
  // lldb writes one Exception stream per thread, most with no exception:
  // the crash is the first that has one.
  size_t chosen = 0;
  for (size_t i = 0; i < read.size(); ++i)
    if (read[i].ExceptionRecord.ExceptionCode != 0) {
      chosen = i;
      break;
    }
  if (read.size() > 1)
    warn(plural(read.size(), "Exception stream", "Exception streams") +
         " (one per thread, as lldb writes them): thread " + std::to_string(read[chosen].ThreadId) +
         "'s taken for the crash");
  const md::ExceptionStream& exception = read[chosen];
  SnapshotCrash crash;
  crash.thread_id = exception.ThreadId;
  crash.code = exception.ExceptionRecord.ExceptionCode;
  crash.flags = exception.ExceptionRecord.ExceptionFlags;
  crash.address = exception.ExceptionRecord.ExceptionAddress;
  uint32_t parameters = exception.ExceptionRecord.NumberParameters;
  if (parameters > md::Exception::MaxParameters) {
    warn("the exception claims " + std::to_string(parameters) + " parameters; at most " +
         std::to_string(md::Exception::MaxParameters) + " read");
    parameters = md::Exception::MaxParameters;
  }
  for (uint32_t i = 0; i < parameters; ++i)
    crash.parameters.push_back(exception.ExceptionRecord.ExceptionInformation[i]);
  out_.crash = crash;
  // The exception's context is the thread's state at the crash (the thread
  // list's is where the handler was writing the dump).
  auto thread = std::find_if(out_.threads.begin(), out_.threads.end(),
                             [&](const SnapshotThread& t) { return t.id == crash.thread_id; });
  if (thread == out_.threads.end()) {
    warn("the exception names thread " + std::to_string(crash.thread_id) +
         ", which the thread list does not hold");
    return;
  }
  if (exception.ThreadContext.DataSize == 0)
    return;
  if (std::optional<DecodedContext> decoded = context(
          exception.ThreadContext, "the exception of thread " + std::to_string(crash.thread_id))) {
    if (decoded->cpu == out_.cpu)
      thread->registers = std::move(decoded->registers);
    else
      warn(std::string("the exception's context is for ") + cpuName(decoded->cpu) +
           "; the thread's own kept");
  }
}

} // namespace dumpsyms::minidump_streams
