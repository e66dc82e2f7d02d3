#include "common/http/http_client.h"

#include "common/http/http_answers.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <curl/curl.h>
#include <memory>
#include <mutex>
#include <unistd.h>

namespace dumpsyms {

namespace {

void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// A body over the limit stops the transfer (a short count is an error to
// libcurl): a server cannot keep a client reading forever.
size_t collectBody(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  return addBodyBytes(*response, llvm::StringRef(data, size * count)) ? size * count : 0;
}

// A download: the body of a 2xx answer goes to the file, any other (an
// error page, a redirect's) to the response as usual.
struct DownloadSink {
  CURL* curl;
  HttpResponse* response;
  std::FILE* file;
  uint64_t limit;
};

size_t collectDownload(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  long status = 0;
  curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
  size_t n = size * count;
  if (status < 200 || status > 299)
    return collectBody(data, size, count, sink->response);
  if (n > sink->limit - sink->response->downloaded) {
    sink->response->download_over_limit = true;
    return 0;
  }
  if (std::fwrite(data, 1, n, sink->file) != n)
    return 0;
  sink->response->downloaded += n;
  return n;
}

size_t collectHeader(char* data, size_t size, size_t count, void* user) {
  addHeaderLine(*static_cast<HttpResponse*>(user), llvm::StringRef(data, size * count));
  return size * count;
}

struct UploadCursor {
  llvm::StringRef data;
  size_t offset = 0;
};

size_t readBody(char* buffer, size_t size, size_t count, void* user) {
  auto* cursor = static_cast<UploadCursor*>(user);
  size_t n = std::min(size * count, cursor->data.size() - cursor->offset);
  std::memcpy(buffer, cursor->data.data() + cursor->offset, n);
  cursor->offset += n;
  return n;
}

size_t readBodyFile(char* buffer, size_t size, size_t count, void* user) {
  auto* file = static_cast<std::FILE*>(user);
  size_t n = std::fread(buffer, 1, size * count, file);
  // A read error stops the transfer rather than send a short body.
  return std::ferror(file) ? CURL_READFUNC_ABORT : n;
}

// When the request has gone out in full, and whether the answer has since
// taken longer than it may.
struct AnswerClock {
  using Clock = std::chrono::steady_clock;
  bool sent = false;
  Clock::time_point sent_at;
  std::chrono::seconds limit;
  bool too_slow = false;
};

int watchAnswer(void* user, curl_off_t, curl_off_t, curl_off_t upload_total, curl_off_t uploaded) {
  auto* clock = static_cast<AnswerClock*>(user);
  AnswerClock::Clock::time_point now = AnswerClock::Clock::now();
  if (!clock->sent && upload_total > 0 && uploaded >= upload_total) {
    clock->sent = true;
    clock->sent_at = now;
  }
  if (clock->sent && now - clock->sent_at > clock->limit) {
    clock->too_slow = true;
    return 1; // abort the transfer
  }
  return 0;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
  void operator()(curl_mime* mime) const { curl_mime_free(mime); }
};

} // namespace

std::string urlEncode(llvm::StringRef text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      out += escaped;
    }
  }
  return out;
}

std::string urlEncodePath(llvm::StringRef relative) {
  std::string out;
  while (!relative.empty()) {
    auto [component, rest] = relative.split('/');
    if (!out.empty())
      out += '/';
    out += urlEncode(component);
    relative = rest;
  }
  return out;
}

HttpResponse performRequest(const HttpRequest& request) {
  initializeOnce();
  HttpResponse response;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) {
    response.transport_error = "cannot start libcurl";
    return response;
  }
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, long(request.timeout_seconds));
  // A transfer that moves no byte for the timeout is stalled: give up on it.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, long(request.timeout_seconds));
  DownloadSink sink{c, &response, request.download, request.download_limit};
  if (request.download) {
    std::fflush(request.download);
    if (ftruncate(fileno(request.download), 0) != 0) {
      response.transport_error = "cannot empty the download file";
      return response;
    }
    std::rewind(request.download);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collectDownload);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  } else {
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collectBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
  }
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (request.follow_redirects) {
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  }
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, collectHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "symstore/" DUMP_SYMS_VERSION);
  char error_text[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
  // A request without a body is sent once the transfer starts (connecting
  // counts: --timeout bounds that alone).
  bool has_body = !request.body.empty() || !request.form.empty() || request.body_file;
  AnswerClock clock{!has_body, AnswerClock::Clock::now(),
                    std::chrono::seconds(request.answer_seconds)};
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, watchAnswer);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &clock);

  curl_slist* raw_headers = nullptr;
  for (const std::string& header : request.headers)
    raw_headers = curl_slist_append(raw_headers, header.c_str());
  // No "Expect: 100-continue" round trip. A signed request keeps the
  // header (libcurl 7.88 would still sign a blanked one, which AWS refuses)
  // and just does not wait for the 100.
  if (request.aws_sigv4.empty())
    raw_headers = curl_slist_append(raw_headers, "Expect:");
  else
    curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  std::unique_ptr<curl_slist, CurlDeleter> headers(raw_headers);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());

  UploadCursor cursor{request.body, 0};
  std::unique_ptr<curl_mime, CurlDeleter> mime;
  if (request.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT" && request.body_file) {
    std::clearerr(request.body_file);
    if (std::fseek(request.body_file, 0, SEEK_SET) != 0) {
      response.transport_error = "cannot read the file to send from its start";
      return response;
    }
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, readBodyFile);
    curl_easy_setopt(c, CURLOPT_READDATA, request.body_file);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body_file_size));
  } else if (request.method == "PUT") {
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, readBody);
    curl_easy_setopt(c, CURLOPT_READDATA, &cursor);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body.size()));
  } else if (request.method == "POST") {
    if (!request.form.empty()) {
      mime.reset(curl_mime_init(c));
      for (const FormPart& part : request.form) {
        curl_mimepart* field = curl_mime_addpart(mime.get());
        curl_mime_name(field, part.name.c_str());
        if (part.filename.empty()) {
          curl_mime_data(field, part.value.data(), part.value.size());
        } else {
          curl_mime_data(field, part.data.data(), part.data.size());
          curl_mime_filename(field, part.filename.c_str());
        }
        if (!part.content_type.empty())
          curl_mime_type(field, part.content_type.c_str());
      }
      curl_easy_setopt(c, CURLOPT_MIMEPOST, mime.get());
    } else {
      curl_easy_setopt(c, CURLOPT_POST, 1L);
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    }
  } else if (request.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (!request.aws_sigv4.empty()) {
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, request.aws_sigv4.c_str());
    curl_easy_setopt(c, CURLOPT_USERPWD, request.aws_credentials.c_str());
  }

  CURLcode result = curl_easy_perform(c);
  // Stopped at the body limit: the status and headers are the server's.
  if (result == CURLE_WRITE_ERROR && response.body_over_limit)
    result = CURLE_OK;
  if (result == CURLE_WRITE_ERROR && response.download_over_limit) {
    response.status = 0;
    response.transport_error =
        limits::overLimit("the file", request.download_limit, "bytes") + ": download stopped";
    return response;
  }
  if (request.download && std::fflush(request.download) != 0) {
    response.status = 0;
    response.transport_error = "cannot write the download file";
    return response;
  }
  if (result == CURLE_ABORTED_BY_CALLBACK && clock.too_slow) {
    response.status = 0;
    response.transport_error =
        limits::overLimit("the time the server took to answer", request.answer_seconds, "seconds");
    return response;
  }
  if (result != CURLE_OK) {
    response.status = 0;
    response.transport_error = error_text[0] ? error_text : curl_easy_strerror(result);
    return response;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  if (response.status == 0)
    response.transport_error = "no HTTP answer";
  return response;
}

} // namespace dumpsyms
