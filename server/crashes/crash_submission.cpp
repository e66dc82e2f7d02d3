#include "server/crashes/crash_submission.h"

#include "common/gzip/gzip.h"
#include "common/json/json_text.h"
#include "common/limits/bounded_json.h"
#include "server/crashes/multipart_reader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <unistd.h>

namespace dumpsyms {

const char* crashKindName(CrashKind kind) {
  switch (kind) {
  case CrashKind::Minidump:
    return "minidump";
  case CrashKind::Backtrace:
    return "backtrace";
  case CrashKind::Report:
    return "report";
  }
  return "minidump";
}

namespace {

constexpr size_t kReadPiece = 64 * 1024;

CrashRefusal refuse(int status, std::string discarded, std::string detail) {
  return CrashRefusal{status, std::move(discarded), std::move(detail)};
}

// The refusal a parse error stands for; `stopped` carries it when the
// handler itself stopped the parse.
class SubmissionStop : public llvm::ErrorInfo<SubmissionStop> {
public:
  static char ID;
  explicit SubmissionStop(CrashRefusal refusal) : refusal_(std::move(refusal)) {}
  const CrashRefusal& refusal() const { return refusal_; }
  void log(llvm::raw_ostream& out) const override { out << refusal_.detail; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  CrashRefusal refusal_;
};
char SubmissionStop::ID = 0;

llvm::Error stop(int status, std::string discarded, std::string detail) {
  return llvm::make_error<SubmissionStop>(refuse(status, std::move(discarded), std::move(detail)));
}

CrashRefusal refusalOf(llvm::Error error) {
  CrashRefusal refusal = refuse(400, "malformed_invalid_payload_structure", "");
  llvm::handleAllErrors(
      std::move(error), [&](const SubmissionStop& stopped) { refusal = stopped.refusal(); },
      [&](const MultipartError& bad) {
        refusal = refuse(400, "malformed_" + bad.reason(), bad.message());
      },
      [&](const GunzipError& bad) {
        if (bad.problem() == GunzipError::Problem::OverLimit)
          refusal = refuse(413, "too_large", "the body inflates past the crash size cap");
        else if (bad.problem() == GunzipError::Problem::WriteFailed)
          refusal = refuse(400, "malformed_bad_gzip", bad.detail());
        else
          refusal = refuse(400, "malformed_bad_gzip", bad.message());
      },
      [&](const llvm::ErrorInfoBase& other) {
        refusal = refuse(400, "malformed_invalid_payload_structure", other.message());
      });
  return refusal;
}

bool dropped(const SubmissionLimits& limits, const std::string& name) {
  return limits.drop_annotations.count(llvm::StringRef(name).lower()) != 0;
}

// Feeds the body of `request` as it came, or inflated when it came
// gzip-coded, to `sink`, a piece at a time.
llvm::Error streamBody(const ServerRequest& request, const SubmissionLimits& limits,
                       const GunzipSink& sink) {
  std::string encoding = llvm::StringRef(request.header("content-encoding")).trim().lower();
  if (!encoding.empty() && encoding != "identity" && encoding != "gzip" && encoding != "x-gzip")
    return stop(400, "malformed_unknown_encoding",
                "the body's Content-Encoding is " + encoding + ", not gzip");
  if (request.body_path.empty())
    return llvm::Error::success(); // no body: the parse says what is missing
  int fd = ::open(request.body_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return stop(500, "", "cannot read the spooled body: " + std::string(std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (encoding == "gzip" || encoding == "x-gzip") {
    GunzipRules rules;
    rules.max_output = limits.max_bytes;
    return gunzip(fd, sink, rules);
  }
  std::string piece(kReadPiece, '\0');
  for (;;) {
    ssize_t got = ::read(fd, piece.data(), piece.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return stop(500, "", "cannot read the spooled body: " + std::string(std::strerror(errno)));
    if (got == 0)
      return llvm::Error::success();
    if (llvm::Error error = sink(llvm::StringRef(piece.data(), static_cast<size_t>(got))))
      return error;
  }
}

// The parts of a crash form, as they arrive.
class CrashForm final : public MultipartHandler {
public:
  CrashForm(ReceivedCrash& crash, const SubmissionLimits& limits, std::string spool_dir)
      : crash_(crash), limits_(limits), spool_dir_(std::move(spool_dir)) {}

  llvm::Error beginPart(const PartHeaders& headers) override {
    field_ = headers.name;
    text_.reset();
    file_ = nullptr;
    bool is_dump = headers.name == "upload_file_minidump";
    if (headers.filename || is_dump || headers.name == "backtrace") {
      auto spooled = SpoolFile::create(spool_dir_);
      if (!spooled)
        return stop(500, "", "cannot spool a part: " + llvm::toString(spooled.takeError()));
      if ((is_dump && !dump_seen_) || (headers.name == "backtrace" && !crash_.payload)) {
        if (is_dump)
          dump_seen_ = true;
        if (crash_.payload) // a backtrace before the dump: the dump is the crash
          crash_.attachments.push_back({"backtrace", "", std::move(*crash_.payload)});
        crash_.kind = is_dump ? CrashKind::Minidump : CrashKind::Backtrace;
        crash_.payload = std::move(*spooled);
        crash_.payload_filename = headers.filename.value_or("");
        file_ = &*crash_.payload;
        return llvm::Error::success();
      }
      if (crash_.attachments.size() >= limits_.max_attachments)
        return stop(400, "malformed_too_many_attachments",
                    "more than " + std::to_string(limits_.max_attachments) + " attachments");
      crash_.attachments.push_back(
          {headers.name, headers.filename.value_or(""), std::move(*spooled)});
      file_ = &crash_.attachments.back().file;
      return llvm::Error::success();
    }
    if (++annotations_ > limits_.max_annotations)
      return stop(400, "malformed_too_many_annotations",
                  "more than " + std::to_string(limits_.max_annotations) + " fields");
    text_.emplace();
    return llvm::Error::success();
  }

  llvm::Error partData(llvm::StringRef bytes) override {
    if (file_)
      return file_->write(bytes);
    text_bytes_ += bytes.size();
    if (text_bytes_ > limits_.max_annotation_bytes)
      return stop(413, "too_large",
                  "the text fields are over " + std::to_string(limits_.max_annotation_bytes) +
                      " bytes");
    text_->append(bytes.data(), bytes.size());
    return llvm::Error::success();
  }

  llvm::Error endPart() override {
    if (file_) {
      file_ = nullptr;
      return llvm::Error::success();
    }
    if (text_ && !dropped(limits_, field_))
      crash_.annotations[field_] = std::move(*text_);
    text_.reset();
    return llvm::Error::success();
  }

private:
  ReceivedCrash& crash_;
  const SubmissionLimits& limits_;
  std::string spool_dir_;
  std::string field_;
  std::optional<std::string> text_;
  SpoolFile* file_ = nullptr;
  bool dump_seen_ = false;
  size_t annotations_ = 0;
  uint64_t text_bytes_ = 0;
};

std::string annotationOr(const ReceivedCrash& crash, const char* name) {
  auto found = crash.annotations.find(name);
  return found == crash.annotations.end() ? std::string() : found->second;
}

std::string queryOr(const ServerRequest& request, const char* name) {
  auto found = request.query.find(name);
  return found == request.query.end() ? std::string() : found->second;
}

// Which product and version the crash is of: Breakpad's prod/ver,
// Crashpad's URL arguments, Socorro's ProductName/Version; Electron names
// itself in prod and the application in _productName/_version.
void nameProduct(ReceivedCrash& crash, const ServerRequest& request) {
  for (const char* name : {"prod", "ProductName"})
    if (crash.product.empty())
      crash.product = annotationOr(crash, name);
  if (crash.product.empty())
    crash.product = queryOr(request, "product");
  for (const char* name : {"ver", "Version"})
    if (crash.version.empty())
      crash.version = annotationOr(crash, name);
  if (crash.version.empty())
    crash.version = queryOr(request, "version");
  if (crash.product == "Electron" && !annotationOr(crash, "_productName").empty()) {
    crash.product = annotationOr(crash, "_productName");
    if (!annotationOr(crash, "_version").empty())
      crash.version = annotationOr(crash, "_version");
  }
  crash.guid = annotationOr(crash, "guid");
  if (crash.guid.empty())
    crash.guid = queryOr(request, "guid");
}

bool startsWithMinidumpMagic(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char magic[4] = {};
  ssize_t got = ::pread(fd, magic, 4, 0);
  ::close(fd);
  return got == 4 && std::string(magic, 4) == "MDMP";
}

} // namespace

SubmissionResult readCrashSubmission(const ServerRequest& request, const SubmissionLimits& limits,
                                     const std::string& spool_dir) {
  std::string type = request.header("content-type");
  if (llvm::StringRef(type).trim().empty())
    return refuse(400, "malformed_no_content_type", "the request has no Content-Type");
  if (!llvm::StringRef(type).trim().lower().starts_with("multipart/form-data"))
    return refuse(400, "malformed_wrong_content_type",
                  "the Content-Type is " + type + ", not multipart/form-data");
  auto boundary = multipartBoundary(type);
  if (!boundary)
    return refuse(400, "malformed_no_boundary", "the multipart Content-Type names no boundary");

  ReceivedCrash crash;
  CrashForm form(crash, limits, spool_dir);
  MultipartReader reader(*boundary, form);
  llvm::Error streamed =
      streamBody(request, limits, [&](llvm::StringRef bytes) { return reader.feed(bytes); });
  if (streamed)
    return refusalOf(std::move(streamed));
  if (llvm::Error finished = reader.finish())
    return refusalOf(std::move(finished));
  if (!crash.payload)
    return refuse(400, "malformed_no_minidump",
                  "the form has neither an upload_file_minidump nor a backtrace part");
  if (llvm::Error closed = crash.payload->close())
    return refusalOf(std::move(closed));
  for (CrashAttachment& attachment : crash.attachments)
    if (llvm::Error closed = attachment.file.close())
      return refusalOf(std::move(closed));
  if (crash.kind == CrashKind::Minidump && !startsWithMinidumpMagic(crash.payload->path()))
    return refuse(400, "malformed_not_minidump", "upload_file_minidump is not a minidump");
  if (crash.payload->size() == 0)
    return refuse(400, "malformed_empty_payload", "the crash's part is empty");
  nameProduct(crash, request);
  return crash;
}

SubmissionResult readCrashReport(const ServerRequest& request, const SubmissionLimits& limits,
                                 const std::string& spool_dir) {
  auto spooled = SpoolFile::create(spool_dir);
  if (!spooled)
    return refuse(500, "", "cannot spool the report: " + llvm::toString(spooled.takeError()));
  SubmissionLimits report_limits = limits;
  report_limits.max_bytes = std::min(limits.max_bytes, limits::kMaxCrashReport);
  std::string text;
  llvm::Error streamed =
      streamBody(request, report_limits, [&](llvm::StringRef bytes) -> llvm::Error {
        if (text.size() + bytes.size() > report_limits.max_bytes)
          return stop(413, "too_large",
                      "the report is over " + std::to_string(report_limits.max_bytes) + " bytes");
        text.append(bytes.data(), bytes.size());
        return llvm::Error::success();
      });
  if (streamed)
    return refusalOf(std::move(streamed));
  auto parsed = parseBoundedJson(text);
  if (!parsed) {
    std::string why = llvm::toString(parsed.takeError());
    return refuse(400, "malformed_invalid_json", "the report is not JSON: " + why);
  }
  llvm::json::Object* report = parsed->getAsObject();
  if (!report)
    return refuse(400, "malformed_invalid_json", "the report is not a JSON object");
  if (!report->getString("backtrace"))
    return refuse(400, "malformed_no_backtrace", "the report has no \"backtrace\" string");

  ReceivedCrash crash;
  crash.kind = CrashKind::Report;
  for (const auto& [key, value] : *report) {
    std::string name = key.str();
    if (name == "backtrace" || dropped(limits, name))
      continue;
    if (auto string = value.getAsString())
      crash.annotations[name] = string->str();
    else
      crash.annotations[name] = jsonText(value);
  }
  if (auto name = report->getString("name"))
    crash.product = name->str();
  if (auto version = report->getString("firmwareVersion"))
    crash.version = version->str();
  if (auto node = report->getString("nodeId"))
    crash.guid = node->str();
  // What is kept is the report without the fields that are never stored.
  llvm::json::Object kept;
  for (const auto& [key, value] : *report)
    if (key == "backtrace" || !dropped(limits, key.str()))
      kept[key] = value;
  if (llvm::Error error = spooled->write(jsonText(llvm::json::Value(std::move(kept)))))
    return refusalOf(std::move(error));
  if (llvm::Error closed = spooled->close())
    return refusalOf(std::move(closed));
  crash.payload = std::move(*spooled);
  crash.payload_filename = "report.json";
  return crash;
}

} // namespace dumpsyms
