#include "server/http/request_body.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <microhttpd.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

constexpr const char* kSpoolPrefix = "upload-";

} // namespace

size_t removeStaleSpoolFiles(const std::string& spool_dir, std::chrono::seconds age) {
  namespace fs = std::filesystem;
  std::error_code error;
  size_t removed = 0;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(spool_dir, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    if (path.filename().string().rfind(kSpoolPrefix, 0) != 0 || !it->is_regular_file(error))
      continue;
    auto written = fs::last_write_time(path, error);
    if (!error && now - written > age && fs::remove(path, error))
      ++removed;
  }
  return removed;
}

RequestBody::RequestBody(std::string spool_dir, uint64_t max_bytes)
    : spool_dir_(std::move(spool_dir)), max_bytes_(max_bytes) {}

RequestBody::~RequestBody() {
  if (post_)
    MHD_destroy_post_processor(post_);
  if (body_fd_ >= 0)
    ::close(body_fd_);
  if (part_fd_ >= 0)
    ::close(part_fd_);
  // The handler may have consumed a spool file (renamed it into the
  // store): a missing file is fine here.
  for (const std::string& path : spooled_)
    ::unlink(path.c_str());
}

void RequestBody::fail(int status, std::string reason) {
  if (status_ == 0) {
    status_ = status;
    reason_ = std::move(reason);
  }
}

int RequestBody::newSpoolFile(std::string& path) {
  std::string pattern = spool_dir_ + "/" + kSpoolPrefix + "XXXXXX";
  int fd = ::mkstemp(pattern.data());
  if (fd < 0 && errno == ENOENT) {
    std::error_code ignored;
    std::filesystem::create_directories(spool_dir_, ignored);
    pattern = spool_dir_ + "/" + kSpoolPrefix + "XXXXXX";
    fd = ::mkstemp(pattern.data());
  }
  if (fd < 0) {
    fail(507, "cannot spool the body in " + spool_dir_ + ": " + std::strerror(errno));
    return -1;
  }
  path = pattern;
  spooled_.push_back(path);
  return fd;
}

bool RequestBody::writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      fail(507, std::string("cannot spool the body: ") + std::strerror(errno));
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

namespace {

MHD_Result iterateForm(void* self, MHD_ValueKind, const char* key, const char* filename,
                       const char*, const char*, const char* data, uint64_t offset, size_t size) {
  auto* body = static_cast<RequestBody*>(self);
  return body->formData(key ? key : "", filename, data, offset, size) ? MHD_YES : MHD_NO;
}

} // namespace

bool RequestBody::startForm(MHD_Connection* connection) {
  post_ = MHD_create_post_processor(connection, 64 * 1024, &iterateForm, this);
  return post_ != nullptr;
}

bool RequestBody::formData(const char* key, const char* filename, const char* data, uint64_t offset,
                           size_t size) {
  if (offset == 0) {
    // A new part: libmicrohttpd starts every part at offset 0.
    if (part_fd_ >= 0) {
      ::close(part_fd_);
      part_fd_ = -1;
    }
    if (form_.count(key)) {
      fail(400, std::string("the form field '") + key + "' appears twice");
      return false;
    }
    if (form_.size() >= kMaxFormFields) {
      fail(413, "the form has more than " + std::to_string(kMaxFormFields) + " fields");
      return false;
    }
    current_key_ = key;
    FormField& field = form_[key];
    if (filename) {
      field.filename = filename;
      part_fd_ = newSpoolFile(field.spool_path);
      if (part_fd_ < 0)
        return false;
    }
  } else if (current_key_ != key) {
    fail(400, "the multipart body is malformed");
    return false;
  }
  FormField& field = form_[current_key_];
  field.size += size;
  if (!field.spool_path.empty())
    return writeAll(part_fd_, data, size);
  if (field.size > kMaxFormFieldBytes) {
    fail(413, std::string("the form field '") + key + "' is larger than " +
                  std::to_string(kMaxFormFieldBytes) + " bytes");
    return false;
  }
  field.value.append(data, size);
  return true;
}

bool RequestBody::append(const char* data, size_t size) {
  received_ += size; // counted even once failed: a refused body is still capped
  if (received_ > max_bytes_) {
    status_ = 413;
    reason_ = "the body is larger than " + std::to_string(max_bytes_) + " bytes";
    return false;
  }
  if (failed())
    return false;
  if (post_) {
    if (MHD_post_process(post_, data, size) == MHD_YES)
      return true;
    fail(400, "the multipart body is malformed"); // unless a field said more
    return false;
  }
  if (body_fd_ < 0 && (body_fd_ = newSpoolFile(body_path_)) < 0)
    return false;
  return writeAll(body_fd_, data, size);
}

bool RequestBody::finish(ServerRequest& request) {
  if (failed())
    return false;
  if (post_) {
    MHD_Result complete = MHD_destroy_post_processor(post_);
    post_ = nullptr;
    if (part_fd_ >= 0) {
      ::close(part_fd_);
      part_fd_ = -1;
    }
    if (complete != MHD_YES) {
      fail(400, "the multipart body is malformed or truncated");
      return false;
    }
    request.form = std::move(form_);
    return true;
  }
  // A method with a body but none sent: an empty file all the same.
  if (body_fd_ < 0 && (body_fd_ = newSpoolFile(body_path_)) < 0)
    return false;
  if (::close(body_fd_) != 0) {
    body_fd_ = -1;
    fail(507, std::string("cannot spool the body: ") + std::strerror(errno));
    return false;
  }
  body_fd_ = -1;
  request.body_path = body_path_;
  request.body_size = received_;
  return true;
}

} // namespace dumpsyms
