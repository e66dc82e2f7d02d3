// One request's body as it arrives: a plain body spooled to one file, or a
// multipart/form-data body taken apart by libmicrohttpd's post processor
// into fields (plain ones kept in memory, capped; file parts spooled to
// files of their own). Every spool file is removed when this is destroyed,
// so a request the client abandons, or one refused, leaves nothing behind.
#pragma once

#include "server/http/http_server.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

struct MHD_Connection;
struct MHD_PostProcessor;

namespace dumpsyms {

// Caps of a multipart form's plain fields (file parts are capped only by
// the body's own limit).
constexpr size_t kMaxFormFieldBytes = 64 * 1024;
constexpr size_t kMaxFormFields = 64;

// Removes the spool files (and only those) a server killed mid-request
// left in `spool_dir` more than `age` ago; younger ones may be another
// server's over the same store, still receiving. Returns how many.
size_t removeStaleSpoolFiles(const std::string& spool_dir, std::chrono::seconds age);

class RequestBody {
public:
  RequestBody(std::string spool_dir, uint64_t max_bytes);
  ~RequestBody();
  RequestBody(const RequestBody&) = delete;
  RequestBody& operator=(const RequestBody&) = delete;

  // Takes the body apart as a multipart form; false if libmicrohttpd
  // cannot (no boundary): the caller refuses the request.
  bool startForm(MHD_Connection* connection);
  // The next bytes of the body. False once the request must be refused
  // (status() and reason() say why); further bytes are then ignored.
  bool append(const char* data, size_t size);
  // The body is complete: fills request.body_path/body_size or
  // request.form. False if the form was malformed or truncated.
  bool finish(ServerRequest& request);

  bool failed() const { return status_ != 0; }
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  uint64_t received() const { return received_; }
  // Whether the body itself passed the size cap (not merely a form field).
  bool tooLarge() const { return received_ > max_bytes_; }

  // The post processor's callback: `size` bytes at `offset` of a part.
  bool formData(const char* key, const char* filename, const char* data, uint64_t offset,
                size_t size);

private:
  // A new spool file (mkstemp); -1 with the failure recorded.
  int newSpoolFile(std::string& path);
  bool writeAll(int fd, const char* data, size_t size);
  void fail(int status, std::string reason);

  std::string spool_dir_;
  uint64_t max_bytes_;
  uint64_t received_ = 0;
  int status_ = 0;
  std::string reason_;
  std::vector<std::string> spooled_; // removed in the destructor

  // A plain body.
  int body_fd_ = -1;
  std::string body_path_;

  // A multipart form.
  MHD_PostProcessor* post_ = nullptr;
  std::map<std::string, FormField> form_;
  std::string current_key_; // the field being received
  int part_fd_ = -1;        // its spool file, for a file part
};

} // namespace dumpsyms
