#include "walk/minidump/minidump_snapshot.h"

#include "common/errors/file_error.h"
#include "walk/minidump/stream_reader.h"

namespace dumpsyms {

namespace {

using minidump_streams::StreamReader;

llvm::Expected<ProcessSnapshot> parse(std::shared_ptr<llvm::MemoryBuffer> buffer,
                                      const std::string& path) {
  ProcessSnapshot out;
  out.path = path;
  out.format = "minidump";
  MinidumpBytes bytes(buffer->getBuffer());
  auto directory = readStreamDirectory(bytes, path, out.warnings);
  if (!directory)
    return directory.takeError();
  out.dump_time = directory->time_date_stamp;
  StreamReader reader(bytes, *directory, out);
  reader.readSystemInfo();
  if (llvm::Error error = reader.readThreads())
    return error;
  reader.readThreadNames();
  reader.readException();
  reader.readModules();
  reader.readUnloadedModules();
  reader.readMemory();
  reader.readMiscInfo();
  reader.readBreakpadInfo();
  reader.readAssertion();
  reader.readLinuxStreams();
  reader.readCrashpadInfo();
  reader.fixModuleExtents();
  if (out.cpu == SnapshotCpu::Unknown)
    out.warnings.push_back("neither SystemInfo nor any thread context says which CPU this is");
  out.owner = std::move(buffer);
  return out;
}

} // namespace

llvm::Expected<ProcessSnapshot> readMinidumpSnapshot(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  return parse(std::shared_ptr<llvm::MemoryBuffer>(std::move(*buffer)), path);
}

llvm::Expected<ProcessSnapshot> parseMinidumpSnapshot(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                      const std::string& path) {
  return parse(std::shared_ptr<llvm::MemoryBuffer>(std::move(buffer)), path);
}

} // namespace dumpsyms
