// Upload pieces that need no server: the retry decisions and waits, secret
// redaction, gzip bodies, zip archives, URLs, the store listing's checks.
#include "common/gzip/gzip.h"
#include "common/http/http_answers.h"
#include "common/http/http_client.h"
#include "common/http/retry_policy.h"
#include "common/limits/input_limits.h"
#include "store/layout/store_listing.h"
#include "store/protocols/sym_upload_v2_answers.h"
#include "store/s3/s3_answers.h"
#include "store/upload/upload_protocol.h"
#include "store/upload/upload_runner.h"
#include "store/upload/zip_archive.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <zlib.h>

namespace dumpsyms {
namespace {

HttpResponse answer(long status) {
  HttpResponse response;
  response.status = status;
  return response;
}

HttpResponse answerWith(long status, const std::string& body) {
  HttpResponse response = answer(status);
  response.body = body;
  return response;
}

TEST(RetryPolicy, RetriesTransportErrorsTimeoutsThrottlingAndServerErrors) {
  HttpResponse broken;
  broken.transport_error = "Connection refused";
  EXPECT_TRUE(isRetryable(broken));
  for (long status : {408L, 429L, 500L, 502L, 503L, 504L})
    EXPECT_TRUE(isRetryable(answer(status))) << status;
  for (long status : {200L, 201L, 204L, 400L, 401L, 403L, 404L, 409L, 413L})
    EXPECT_FALSE(isRetryable(answer(status))) << status;
}

TEST(RetryPolicy, RetryAfterInSecondsOrAsADate) {
  EXPECT_EQ(retryAfterSeconds("7", 0), 7.0);
  EXPECT_FALSE(retryAfterSeconds("", 0).has_value());
  EXPECT_FALSE(retryAfterSeconds("soon", 0).has_value());
  std::time_t now = 784111777; // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(retryAfterSeconds("Sun, 06 Nov 1994 08:49:47 GMT", now), 10.0);
  EXPECT_EQ(retryAfterSeconds("Sun, 06 Nov 1994 08:49:00 GMT", now), 0.0);
}

TEST(RetryPolicy, BackoffGrowsIsCappedJitteredAndYieldsToTheServer) {
  RetryPolicy policy;
  policy.first_delay = 0.5;
  policy.max_delay = 4;
  policy.max_retry_after = 60;
  EXPECT_DOUBLE_EQ(backoffDelay(policy, 1, std::nullopt, 0.999999), 0.5 * (0.1 + 0.9 * 0.999999));
  EXPECT_LE(backoffDelay(policy, 3, std::nullopt, 0.99), 2.0);
  EXPECT_LE(backoffDelay(policy, 30, std::nullopt, 0.99), 4.0); // capped
  EXPECT_GE(backoffDelay(policy, 30, std::nullopt, 0.0), 0.4);  // never nothing
  EXPECT_EQ(backoffDelay(policy, 1, 12.0, 0.5), 12.0);          // Retry-After wins
  EXPECT_EQ(backoffDelay(policy, 1, 600.0, 0.5), 60.0);         // within reason
}

TEST(UploadRunner, SecretsAreRedactedInEveryForm) {
  UploadConfig config;
  config.token = "t0k/en+1";
  config.aws_secret_key = "s3cr3t";
  std::string text =
      redactSecrets("GET /x?key=t0k%2Fen%2B1 failed; Bearer t0k/en+1; secret s3cr3t; fine", config);
  EXPECT_EQ(text.find("t0k"), std::string::npos) << text;
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
  EXPECT_NE(text.find("fine"), std::string::npos);
}

TEST(UploadProtocol, UrlsJoinAndEncodeSegments) {
  EXPECT_EQ(joinUrl("http://h/base/", "a b/ID/a b.sym"), "http://h/base/a%20b/ID/a%20b.sym");
  EXPECT_EQ(joinUrl("http://h", "lib.so/ID/lib.so.sym"), "http://h/lib.so/ID/lib.so.sym");
}

TEST(GzipBody, InflatesBackToTheInput) {
  std::string input(100000, 'x');
  for (size_t i = 0; i < input.size(); i += 7)
    input[i] = char('a' + i % 26);
  auto gz = gzipCompress(input);
  ASSERT_TRUE(bool(gz));
  ASSERT_GE(gz->size(), 18u);
  EXPECT_EQ(uint8_t((*gz)[0]), 0x1f); // gzip magic
  EXPECT_EQ(uint8_t((*gz)[1]), 0x8b);
  std::string back(input.size(), '\0');
  z_stream stream = {};
  ASSERT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(gz->data());
  stream.avail_in = uInt(gz->size());
  stream.next_out = reinterpret_cast<Bytef*>(back.data());
  stream.avail_out = uInt(back.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  inflateEnd(&stream);
  EXPECT_EQ(back, input);
}

TEST(ZipArchive, HoldsItsEntries) {
  std::string a = "MODULE Linux x86_64 ID a\n", b(5000, 'b');
  auto zip = buildZipArchive({{"a/ID/a.sym", a}, {"b/ID/b.sym", b}});
  ASSERT_TRUE(bool(zip)) << llvm::toString(zip.takeError());
  EXPECT_EQ(zip->substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_NE(zip->find("a/ID/a.sym"), std::string::npos);
  EXPECT_NE(zip->find("b/ID/b.sym"), std::string::npos);
  EXPECT_LT(zip->size(), a.size() + b.size()); // deflated
}

TEST(StoreListing, RefusesMisfiledAndForeignFiles) {
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("listing-test", root));
  std::string store(root);
  auto put = [&](const std::string& relative, const std::string& text) {
    llvm::SmallString<256> path(store);
    path += "/" + relative;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::ofstream(std::string(path)) << text;
  };
  put("good/ID1/good.sym", "MODULE Linux x86_64 ID1 good\nFILE 0 a.c\n");
  put("moved/ID2/moved.sym", "MODULE Linux x86_64 ID9 moved\n");
  put("text/ID3/text.sym", "hello\n");
  put(".uploaded/put-server", "good/ID1/good.sym 40\n"); // ledgers are not files of the store
  auto listing = listStore(store);
  ASSERT_TRUE(bool(listing));
  ASSERT_EQ(listing->files.size(), 1u);
  EXPECT_EQ(listing->files[0].relative_path, "good/ID1/good.sym");
  EXPECT_EQ(listing->files[0].cpu, "x86_64");
  EXPECT_EQ(listing->problems.size(), 2u);
  EXPECT_FALSE(bool(listStore(store + "/no-such-dir")));
  llvm::consumeError(listStore(store + "/no-such-dir").takeError());
  llvm::sys::fs::remove_directories(store);
}

TEST(ServerAnswers, BodyOverTheLimitStopsTheTransferAndSaysSo) {
  HttpResponse answer = answerWith(500, "");
  std::string piece(1 << 20, 'x');
  for (size_t i = 0; i < limits::kMaxAnswerBody / piece.size(); ++i)
    EXPECT_TRUE(addBodyBytes(answer, piece));
  EXPECT_FALSE(addBodyBytes(answer, "y"));
  EXPECT_TRUE(answer.body_over_limit);
  EXPECT_EQ(answer.body.size(), limits::kMaxAnswerBody);
  std::string line = describeFailure("PUT https://symbols.example/a", answer);
  EXPECT_EQ(line, "PUT https://symbols.example/a: HTTP 500 " + std::string(300, 'x') +
                      "... (the answer is over the limit of 4194304 bytes: read no further)");
  // A JSON answer cut at the limit is no answer.
  answer.status = 200;
  answer.body = "{\"status\": \"FOUND\"}";
  EXPECT_EQ(checkStatusAnswer(answer), ServerSymbolStatus::Unknown);
  answer.body_over_limit = false;
  EXPECT_EQ(checkStatusAnswer(answer), ServerSymbolStatus::Found);
}

TEST(ServerAnswers, FailureLinesAreOnePrintableLine) {
  HttpResponse answer = answerWith(403, "\x1b[2J\x1b]0;owned\x07"
                                        "denied\rsecond\nthird");
  EXPECT_EQ(describeFailure("GET x", answer), "GET x: HTTP 403 ?[2J?]0;owned?denied");
  answer.body = "<Error><Code>Access\x1b[31mDenied</Code><Message>no\nway</Message></Error>";
  EXPECT_EQ(s3Failure("PUT s3://b/k", answer), "PUT s3://b/k: HTTP 403 Access?[31mDenied: no");
}

TEST(ServerAnswers, JsonNestedPastTheLimitIsNoAnswer) {
  HttpResponse answer = answerWith(200, std::string(100000, '[') + "{\"status\": \"FOUND\"}");
  EXPECT_EQ(checkStatusAnswer(answer), ServerSymbolStatus::Unknown);
  EXPECT_EQ(jsonStringField(answerWith(200, "{\"uploadKey\": \"k\"}"), "uploadKey"), "k");
  EXPECT_FALSE(createUploadAnswer(answerWith(200, "{\"uploadKey\": \"k\"}")));
}

TEST(ServerAnswers, ListingPagesAndHeaders) {
  S3ListingPage page = parseListingPage(
      "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t2"
      "</NextContinuationToken><Contents><Key>a/b.sym</Key></Contents><Contents><Key>c"
      "</Key></Contents></ListBucketResult>");
  EXPECT_EQ(page.keys, (std::vector<std::string>{"a/b.sym", "c"}));
  EXPECT_EQ(page.continuation, "t2");
  EXPECT_FALSE(parseListingPage("<IsTruncated>false</IsTruncated>").continuation);
  HttpResponse answer;
  addHeaderLine(answer, "HTTP/1.1 100 Continue\r\n");
  addHeaderLine(answer, "X-Early: 1\r\n");
  addHeaderLine(answer, "HTTP/1.1 503 Service Unavailable\r\n");
  addHeaderLine(answer, "Retry-After:  7 \r\n");
  EXPECT_EQ(answer.header("retry-after"), "7");
  EXPECT_EQ(answer.header("x-early"), "");
}

// A server on 127.0.0.1 that answers one request with its headers, then
// one body byte every 100 ms: never stalled, never done.
class TricklingServer {
public:
  TricklingServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::listen(listener_, 1) == 0 &&
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TricklingServer() {
    stop_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/x"; }

private:
  void serve() {
    int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0)
      return;
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0)
        break;
      request.append(buffer, size_t(n));
    }
    std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n";
    ::send(client, head.data(), head.size(), MSG_NOSIGNAL);
    for (int i = 0; i < 200 && !stop_; ++i) {
      if (::send(client, "x", 1, MSG_NOSIGNAL) != 1)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::close(client);
  }

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(HttpClient, AnAnswerTricklingInPastItsTimeIsCutOff) {
  TricklingServer server;
  HttpRequest request;
  request.url = server.url();
  request.timeout_seconds = 30; // never stalled: this alone would wait 100000 s
  request.answer_seconds = 1;
  auto start = std::chrono::steady_clock::now();
  HttpResponse answer = performRequest(request);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(answer.answered());
  EXPECT_EQ(answer.transport_error,
            "the time the server took to answer is over the limit of 1 seconds");
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_TRUE(isRetryable(answer));
}

} // namespace
} // namespace dumpsyms
