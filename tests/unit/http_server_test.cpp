// The HTTP server over libmicrohttpd, driven by raw sockets: what a
// handler sees of a request (path, query, lower-case headers, spooled
// bodies, multipart forms), refusals sent before a body is read, size
// caps, abandoned requests leaving no spool file, HEAD, file answers by
// offset, and a stop that lets a request in flight finish.
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace dumpsyms {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t filesIn(const std::string& dir) {
  if (!fs::exists(dir))
    return 0;
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// A connected client socket with a receive timeout.
class Client {
public:
  explicit Client(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~Client() { close(); }
  bool connected() const { return connected_; }
  void send(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0)
        return;
      done += static_cast<size_t>(n);
    }
  }
  // Everything until the server closes (or the timeout).
  std::string receiveAll() {
    std::string all;
    char buffer[65536];
    for (;;) {
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0)
        return all;
      all.append(buffer, static_cast<size_t>(n));
    }
  }
  void close() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  int fd_ = -1;
  bool connected_ = false;
};

int statusOf(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12)
    return 0;
  return std::stoi(response.substr(9, 3));
}

std::string bodyOf(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

// One request with "Connection: close"; the whole answer.
std::string exchange(uint16_t port, const std::string& request) {
  Client client(port);
  EXPECT_TRUE(client.connected());
  client.send(request);
  return client.receiveAll();
}

class HttpServerTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("http_server_test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    spool_ = (dir_ / "spool").string();
    fs::create_directories(spool_);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }

  void start(HttpServer::Admit admit = nullptr, uint64_t max_body = 1 << 20,
             std::string host = "127.0.0.1") {
    HttpServerOptions options;
    options.host = host;
    options.port = 0;
    options.threads = 2;
    options.connection_timeout_seconds = 5;
    options.max_body_bytes = max_body;
    options.spool_dir = spool_;
    if (!admit)
      admit = [](const ServerRequest&) { return std::optional<ServerResponse>(); };
    auto server = HttpServer::start(
        options, std::move(admit),
        [this](ServerRequest& request) {
          ++handled_;
          std::lock_guard lock(mutex_);
          seen_ = request;
          if (!request.body_path.empty())
            seen_body_ = readFile(request.body_path);
          for (auto& [name, field] : request.form)
            if (!field.spool_path.empty())
              seen_parts_[name] = readFile(field.spool_path);
          return handler_ ? handler_(request) : ServerResponse::text(200, "handled");
        },
        [this](const ServerRequest&, const ServerResponse& response, uint64_t bytes,
               std::chrono::steady_clock::duration) {
          std::lock_guard lock(mutex_);
          observed_.push_back({response.status, bytes});
        });
    ASSERT_TRUE(static_cast<bool>(server)) << llvm::toString(server.takeError());
    server_ = std::move(*server);
    ASSERT_NE(server_->port(), 0);
  }

  // Waits (bounded) until the spool directory is empty.
  bool spoolEmpties() {
    for (int i = 0; i < 250 && filesIn(spool_) != 0; ++i)
      std::this_thread::sleep_for(20ms);
    return filesIn(spool_) == 0;
  }

  fs::path dir_;
  std::string spool_;
  std::unique_ptr<HttpServer> server_;
  std::function<ServerResponse(ServerRequest&)> handler_;
  std::atomic<int> handled_{0};
  std::mutex mutex_;
  ServerRequest seen_;
  std::string seen_body_;
  std::map<std::string, std::string> seen_parts_;
  std::vector<std::pair<int, uint64_t>> observed_;
};

TEST_F(HttpServerTest, HandlerSeesPathQueryAndLowerCaseHeaders) {
  start();
  std::string response =
      exchange(server_->port(), "GET /a%20b/ID/x.sym?key=s3cr%2Bt&v=1 HTTP/1.1\r\n"
                                "Host: h\r\nX-Custom-Header: Value\r\n"
                                "Connection: close\r\n\r\n");
  EXPECT_EQ(statusOf(response), 200);
  EXPECT_EQ(bodyOf(response), "handled\n");
  std::lock_guard lock(mutex_);
  EXPECT_EQ(seen_.method, "GET");
  EXPECT_EQ(seen_.path, "/a b/ID/x.sym");
  EXPECT_EQ(seen_.query["key"], "s3cr+t");
  EXPECT_EQ(seen_.query["v"], "1");
  EXPECT_EQ(seen_.header("x-custom-header"), "Value");
  EXPECT_EQ(seen_.client.rfind("127.0.0.1:", 0), 0u);
  EXPECT_TRUE(seen_.body_path.empty());
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  start();
  Client client(server_->port());
  client.send("GET /one HTTP/1.1\r\nHost: h\r\n\r\nGET /two HTTP/1.1\r\nHost: h\r\n"
              "Connection: close\r\n\r\n");
  std::string both = client.receiveAll();
  EXPECT_EQ(handled_.load(), 2);
  EXPECT_NE(both.find("handled\n"), both.rfind("handled\n"));
}

TEST_F(HttpServerTest, PutBodyIsSpooledThenRemoved) {
  start();
  std::string body(300000, 'x');
  for (size_t i = 0; i < body.size(); ++i)
    body[i] = static_cast<char>('a' + i % 26);
  std::string response =
      exchange(server_->port(), "PUT /f HTTP/1.1\r\nHost: h\r\nConnection: close\r\n"
                                "Content-Length: " +
                                    std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(statusOf(response), 200);
  {
    std::lock_guard lock(mutex_);
    EXPECT_EQ(seen_body_, body);
    EXPECT_EQ(seen_.body_size, body.size());
  }
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, ChunkedBodyIsAssembled) {
  start();
  std::string response = exchange(server_->port(), "PUT /f HTTP/1.1\r\nHost: h\r\n"
                                                   "Connection: close\r\n"
                                                   "Transfer-Encoding: chunked\r\n\r\n"
                                                   "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_EQ(statusOf(response), 200);
  std::lock_guard lock(mutex_);
  EXPECT_EQ(seen_body_, "hello world");
}

TEST_F(HttpServerTest, EmptyPutStillHasABodyFile) {
  start();
  std::string response =
      exchange(server_->port(),
               "PUT /f HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(statusOf(response), 200);
  std::lock_guard lock(mutex_);
  EXPECT_FALSE(seen_.body_path.empty());
  EXPECT_EQ(seen_.body_size, 0u);
}

TEST_F(HttpServerTest, DeclaredLengthOverTheCapIs413BeforeTheBody) {
  start(nullptr, 1000);
  Client client(server_->port());
  client.send("PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: 1001\r\n\r\n");
  std::string response = client.receiveAll(); // answered with no body sent
  EXPECT_EQ(statusOf(response), 413);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, TwoContentLengthsAreRefused) {
  start();
  std::string response =
      exchange(server_->port(), "PUT /f HTTP/1.1\r\nHost: h\r\nConnection: close\r\n"
                                "Content-Length: 5\r\nContent-Length: 7\r\n\r\n"
                                "hello");
  EXPECT_EQ(statusOf(response), 400);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(HttpServerTest, ChunkedBodyOverTheCapIsCutOff) {
  start(nullptr, 1000);
  Client client(server_->port());
  client.send("PUT /f HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
  std::string chunk = "200\r\n" + std::string(0x200, 'z') + "\r\n";
  for (int i = 0; i < 4; ++i)
    client.send(chunk);
  client.send("0\r\n\r\n");
  std::string response = client.receiveAll();
  EXPECT_NE(statusOf(response), 200);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(spoolEmpties());
  std::lock_guard lock(mutex_);
  ASSERT_EQ(observed_.size(), 1u);
  EXPECT_EQ(observed_[0].first, 413);
}

TEST_F(HttpServerTest, AdmitRefusesWithoutReadingTheBody) {
  start([](const ServerRequest& request) -> std::optional<ServerResponse> {
    if (request.header("auth-token") != "good")
      return ServerResponse::text(401, "needs a token");
    return std::nullopt;
  });
  Client client(server_->port());
  // A large body is announced and never sent: the answer comes anyway.
  client.send("PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n"
              "Expect: 100-continue\r\n\r\n");
  std::string response = client.receiveAll();
  EXPECT_EQ(statusOf(response), 401);
  EXPECT_EQ(bodyOf(response), "needs a token\n");
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, ARefusedRequestWithoutBodyKeepsTheConnection) {
  start([](const ServerRequest& request) -> std::optional<ServerResponse> {
    if (request.path == "/private")
      return ServerResponse::text(401, "needs a token");
    return std::nullopt;
  });
  Client client(server_->port());
  client.send("GET /private HTTP/1.1\r\nHost: h\r\n\r\nGET /open HTTP/1.1\r\nHost: h\r\n"
              "Connection: close\r\n\r\n");
  std::string both = client.receiveAll();
  EXPECT_EQ(statusOf(both), 401);
  EXPECT_NE(both.find("HTTP/1.1 200 OK"), std::string::npos) << both;
  EXPECT_EQ(handled_.load(), 1);
}

TEST_F(HttpServerTest, AbandonedBodyLeavesNoSpoolFileAndIsNeverHandled) {
  start();
  {
    Client client(server_->port());
    client.send("PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n" +
                std::string(50000, 'p'));
    // The server has the half body spooled by now.
    for (int i = 0; i < 250 && filesIn(spool_) == 0; ++i)
      std::this_thread::sleep_for(20ms);
    EXPECT_EQ(filesIn(spool_), 1u);
  } // hangs up
  EXPECT_TRUE(spoolEmpties());
  EXPECT_EQ(handled_.load(), 0);
}

std::string multipart(const std::vector<std::tuple<std::string, std::string, std::string>>& parts) {
  std::string body;
  for (const auto& [name, filename, value] : parts) {
    body += "--BOUNDARY\r\nContent-Disposition: form-data; name=\"" + name + "\"";
    if (!filename.empty())
      body += "; filename=\"" + filename + "\"\r\nContent-Type: application/octet-stream";
    body += "\r\n\r\n" + value + "\r\n";
  }
  return body + "--BOUNDARY--\r\n";
}

std::string postForm(const std::string& body) {
  return "POST /symupload HTTP/1.1\r\nHost: h\r\nConnection: close\r\n"
         "Content-Type: multipart/form-data; boundary=BOUNDARY\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST_F(HttpServerTest, MultipartFieldsAndFileParts) {
  start();
  std::string sym = "MODULE Linux x86_64 0123 app\nFUNC 1 2 0 main\n";
  std::string big(200000, 'B');
  std::string response =
      exchange(server_->port(), postForm(multipart({{"code_file", "", "app"},
                                                    {"debug_identifier", "", "0123"},
                                                    {"symbol_file", "app.sym", sym},
                                                    {"other", "big.bin", big}})));
  EXPECT_EQ(statusOf(response), 200);
  {
    std::lock_guard lock(mutex_);
    EXPECT_EQ(seen_.form["code_file"].value, "app");
    EXPECT_EQ(seen_.form["debug_identifier"].value, "0123");
    EXPECT_EQ(seen_.form["symbol_file"].filename, "app.sym");
    EXPECT_EQ(seen_.form["symbol_file"].size, sym.size());
    EXPECT_EQ(seen_parts_["symbol_file"], sym);
    EXPECT_EQ(seen_parts_["other"], big);
    EXPECT_TRUE(seen_.body_path.empty());
  }
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, MultipartCaps) {
  start(nullptr, 4 << 20);
  std::string response =
      exchange(server_->port(), postForm(multipart({{"field", "", std::string(70000, 'v')}})));
  EXPECT_EQ(statusOf(response), 413);
  std::vector<std::tuple<std::string, std::string, std::string>> many;
  for (int i = 0; i < 65; ++i)
    many.push_back({"f" + std::to_string(i), "", "v"});
  EXPECT_EQ(statusOf(exchange(server_->port(), postForm(multipart(many)))), 413);
  EXPECT_EQ(
      statusOf(exchange(server_->port(), postForm(multipart({{"a", "", "1"}, {"a", "", "2"}})))),
      400);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, TruncatedMultipartIsRefused) {
  start();
  std::string body = multipart({{"symbol_file", "a.sym", "MODULE x"}});
  body.resize(body.size() - 16); // the closing boundary is cut off
  std::string response = exchange(server_->port(), postForm(body));
  EXPECT_EQ(statusOf(response), 400);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(spoolEmpties());
}

TEST_F(HttpServerTest, FileAnswersByOffsetAndHead) {
  std::string path = (dir_ / "data.bin").string();
  std::ofstream(path, std::ios::binary) << "0123456789abcdef";
  handler_ = [path](ServerRequest&) {
    ServerResponse response;
    response.fd = ::open(path.c_str(), O_RDONLY);
    response.fd_offset = 4;
    response.fd_length = 8;
    return response;
  };
  start();
  std::string get =
      exchange(server_->port(), "GET /d HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(statusOf(get), 200);
  EXPECT_EQ(bodyOf(get), "456789ab");
  std::string head =
      exchange(server_->port(), "HEAD /d HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(statusOf(head), 200);
  EXPECT_NE(head.find("Content-Length: 8\r\n"), std::string::npos);
  EXPECT_EQ(bodyOf(head), "");
  std::lock_guard lock(mutex_);
  ASSERT_EQ(observed_.size(), 2u);
  EXPECT_EQ(observed_[0], std::make_pair(200, uint64_t(8)));
  EXPECT_EQ(observed_[1], std::make_pair(200, uint64_t(0)));
}

TEST_F(HttpServerTest, StopLetsARequestInFlightFinish) {
  handler_ = [](ServerRequest&) {
    std::this_thread::sleep_for(500ms);
    return ServerResponse::text(200, "slow");
  };
  start();
  std::string response;
  std::thread client([&] {
    response = exchange(server_->port(), "GET /s HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  });
  while (handled_.load() == 0)
    std::this_thread::sleep_for(5ms);
  server_->shutdown(10s);
  client.join();
  EXPECT_EQ(statusOf(response), 200);
  EXPECT_EQ(bodyOf(response), "slow\n");
}

TEST_F(HttpServerTest, ListensOnIpv6Loopback) {
  int probe = ::socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 any{};
  any.sin6_family = AF_INET6;
  any.sin6_addr = in6addr_loopback;
  bool has_ipv6 = probe >= 0 && ::bind(probe, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0;
  if (probe >= 0)
    ::close(probe);
  if (!has_ipv6)
    GTEST_SKIP() << "no IPv6 loopback here";
  start(nullptr, 1 << 20, "::1");
  EXPECT_EQ(server_->host(), "[::1]");
  int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_port = htons(server_->port());
  address.sin6_addr = in6addr_loopback;
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  std::string request = "GET /v6 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), ssize_t(request.size()));
  char buffer[4096];
  ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_WAITALL);
  ::close(fd);
  ASSERT_GT(n, 0);
  EXPECT_EQ(statusOf(std::string(buffer, static_cast<size_t>(n))), 200);
}

TEST_F(HttpServerTest, StaleSpoolFilesAreRemovedAtStart) {
  auto make = [&](const std::string& name, std::chrono::hours age) {
    std::string path = spool_ + "/" + name;
    std::ofstream(path) << "partial";
    fs::last_write_time(path, fs::file_time_type::clock::now() - age);
  };
  make("upload-old123", std::chrono::hours(48));
  make("upload-new456", std::chrono::hours(1));
  make("publish-old789", std::chrono::hours(48)); // not the server's own
  start();
  EXPECT_FALSE(fs::exists(spool_ + "/upload-old123"));
  EXPECT_TRUE(fs::exists(spool_ + "/upload-new456"));
  EXPECT_TRUE(fs::exists(spool_ + "/publish-old789"));
}

TEST_F(HttpServerTest, AnAddressInUseIsAnError) {
  start();
  HttpServerOptions options;
  options.port = server_->port();
  options.max_body_bytes = 1;
  options.spool_dir = spool_;
  auto second = HttpServer::start(
      options, [](const ServerRequest&) { return std::optional<ServerResponse>(); },
      [](ServerRequest&) { return ServerResponse::text(200, ""); }, nullptr);
  EXPECT_FALSE(static_cast<bool>(second));
  if (!second)
    llvm::consumeError(second.takeError());
}

} // namespace
} // namespace dumpsyms
