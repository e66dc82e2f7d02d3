#include "store/upload/upload_protocol.h"

#include "common/gzip/gzip.h"
#include "store/protocols/store_put.h"
#include "store/upload/protocols.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <llvm/Support/MemoryBuffer.h>
#include <sys/stat.h>

namespace dumpsyms {

std::string UploadProtocol::serverName() const {
  std::string name = config_.protocol + "-";
  for (char c : config_.url)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return name;
}

std::vector<UploadResult>
SingleFileProtocol::upload(const std::vector<const StoredSymbolFile*>& files) {
  std::vector<UploadResult> results;
  for (const StoredSymbolFile* file : files)
    results.push_back(uploadOne(*file));
  return results;
}

llvm::Error requireHttpUrl(const UploadConfig& config) {
  llvm::StringRef url(config.url);
  if (url.starts_with("http://") || url.starts_with("https://"))
    return llvm::Error::success();
  return llvm::createStringError("--to " + config.url + ": expected an http:// or https:// URL");
}

std::string joinUrl(const std::string& base, const std::string& relative_path) {
  std::string url = base;
  while (!url.empty() && url.back() == '/')
    url.pop_back();
  // Each path segment percent-encoded, the separators kept.
  size_t start = 0;
  while (start <= relative_path.size()) {
    size_t slash = relative_path.find('/', start);
    if (slash == std::string::npos)
      slash = relative_path.size();
    url += "/" + urlEncode(llvm::StringRef(relative_path).slice(start, slash));
    start = slash + 1;
  }
  return url;
}

llvm::Expected<std::string> readBody(const StoredSymbolFile& file, bool gzip) {
  auto buffer = llvm::MemoryBuffer::getFile(file.path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(file.path + ": cannot read it: " + buffer.getError().message());
  if (!gzip)
    return (*buffer)->getBuffer().str();
  return gzipCompress((*buffer)->getBuffer());
}

llvm::Expected<FileBody> openFileBody(const StoredSymbolFile& file) {
  FileBody body;
  body.file.reset(std::fopen(file.path.c_str(), "rb"));
  struct stat info;
  if (!body.file || fstat(fileno(body.file.get()), &info) != 0)
    return llvm::createStringError(file.path + ": cannot read it: " + std::strerror(errno));
  body.size = static_cast<uint64_t>(info.st_size);
  return body;
}

const char* storedContentType(const StoredSymbolFile& file) {
  return file.kind == StoredKind::KeptBinary ? "application/octet-stream" : "text/plain";
}

llvm::Expected<PutBody> makePutBody(const StoredSymbolFile& file, bool gzip) {
  PutBody body;
  if (file.kind != StoredKind::Symbols) {
    auto stored = openFileBody(file);
    if (!stored)
      return stored.takeError();
    body.stored = std::move(*stored);
    body.headers.push_back(std::string("Content-Type: ") + storedContentType(file));
    return body;
  }
  auto text = readBody(file, gzip);
  if (!text)
    return text.takeError();
  body.text = std::move(*text);
  body.headers.push_back(std::string("Content-Type: ") + store_put::kContentType);
  if (gzip)
    body.headers.push_back(std::string("Content-Encoding: ") + store_put::kGzipEncoding);
  return body;
}

void PutBody::attachTo(HttpRequest& request) const {
  if (streamed()) {
    request.body_file = stored.file.get();
    request.body_file_size = stored.size;
  } else {
    request.body = text;
  }
  request.headers.insert(request.headers.end(), headers.begin(), headers.end());
}

llvm::Expected<std::unique_ptr<UploadProtocol>> makeUploadProtocol(const UploadConfig& config) {
  if (config.protocol == "put")
    return makePutProtocol(config);
  if (config.protocol == "s3")
    return makeS3Protocol(config);
  if (config.protocol == "breakpad-v1")
    return makeBreakpadV1Protocol(config);
  if (config.protocol == "breakpad-v2")
    return makeBreakpadV2Protocol(config);
  if (config.protocol == "tecken")
    return makeTeckenProtocol(config);
  return llvm::createStringError("unknown protocol '" + config.protocol + "'");
}

} // namespace dumpsyms
