// A crash report as a client posts it, read into spool files:
//   POST /submit         multipart/form-data from Breakpad's minidump_upload
//                        (upload_file_minidump, prod, ver), Crashpad's
//                        handler (gzip-coded, chunked, <uuid>.dmp, guid,
//                        annotations, attachments, ?product=&version=&guid=),
//                        or a logged backtrace (a `backtrace` text part)
//   POST /submit/report  an OpenSync-style JSON report
// A body that is not what a client sends is refused as Socorro's collector
// refuses it (400 "Discarded=malformed_<reason>", 413 over the size cap),
// never with a 5xx; an inflated body is never held in memory.
#pragma once

#include "common/limits/input_limits.h"
#include "server/http/http_server.h"
#include "server/ingest/spool_file.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace dumpsyms {

enum class CrashKind { Minidump, Backtrace, Report };
const char* crashKindName(CrashKind kind); // "minidump", "backtrace", "report"

struct CrashAttachment {
  std::string field;    // the form field's name
  std::string filename; // as the client named it (may be empty)
  SpoolFile file;
};

struct ReceivedCrash {
  CrashKind kind = CrashKind::Minidump;
  std::string product, version;
  std::string guid; // the client's install id (Crashpad's guid), "" without one
  std::map<std::string, std::string> annotations; // text fields, the dropped ones left out
  std::optional<SpoolFile> payload; // the minidump, the backtrace text or the JSON report
  std::string payload_filename;     // as the client named it
  std::vector<CrashAttachment> attachments;
};

struct CrashRefusal {
  int status = 400;
  std::string discarded; // "malformed_bad_gzip": the body is "Discarded=<this>"
  std::string detail;    // for the log
};

struct SubmissionLimits {
  uint64_t max_bytes = limits::kMaxCrashSubmission; // the body, compressed and inflated alike
  std::set<std::string> drop_annotations;           // lower-case names never stored
  size_t max_attachments = limits::kMaxCrashAttachments;
  size_t max_annotation_bytes = limits::kMaxCrashAnnotationBytes; // all text fields together
  size_t max_annotations = limits::kMaxCrashAnnotations;
};

using SubmissionResult = std::variant<ReceivedCrash, CrashRefusal>;

// POST /submit; `request.body_path` holds the body as it came (the server
// does not take this route's form apart itself).
SubmissionResult readCrashSubmission(const ServerRequest& request, const SubmissionLimits& limits,
                                     const std::string& spool_dir);
// POST /submit/report.
SubmissionResult readCrashReport(const ServerRequest& request, const SubmissionLimits& limits,
                                 const std::string& spool_dir);

} // namespace dumpsyms
