// The crash inbox's multipart/form-data reader (server/crashes/): parts
// split however the bytes arrive, Socorro's refusal reasons for the rest.
#include "server/crashes/multipart_reader.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

struct Part {
  PartHeaders headers;
  std::string body;
};

class Collect final : public MultipartHandler {
public:
  llvm::Error beginPart(const PartHeaders& headers) override {
    parts.push_back({headers, ""});
    return llvm::Error::success();
  }
  llvm::Error partData(llvm::StringRef bytes) override {
    parts.back().body += bytes.str();
    return llvm::Error::success();
  }
  llvm::Error endPart() override { return llvm::Error::success(); }
  std::vector<Part> parts;
};

const char kBody[] =
    "preamble\r\n--XyZ\r\n"
    "Content-Disposition: form-data; name=\"prod\"\r\n\r\n"
    "App\r\n--XyZ\r\n"
    "Content-Disposition: form-data; name=\"upload_file_minidump\"; "
    "filename=\"a \\\"b\\\".dmp\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    "MDMP\r\n--X\r\n\r\nbinary\r\n--XyZ--\r\nepilogue";

// The reason of a refused body, "" when it was read.
std::string reasonOf(const std::string& body, size_t piece, Collect& collect) {
  MultipartReader reader("XyZ", collect);
  for (size_t at = 0; at < body.size(); at += piece)
    if (llvm::Error error = reader.feed(llvm::StringRef(body).substr(at, piece))) {
      std::string reason;
      llvm::handleAllErrors(std::move(error),
                            [&](const MultipartError& bad) { reason = bad.reason(); });
      return reason;
    }
  std::string reason;
  if (llvm::Error error = reader.finish())
    llvm::handleAllErrors(std::move(error),
                          [&](const MultipartError& bad) { reason = bad.reason(); });
  return reason;
}

TEST(MultipartReader, SameFieldsWhateverTheBytesArriveIn) {
  for (size_t piece : {1, 2, 3, 7, 64, 4096}) {
    Collect collect;
    ASSERT_EQ(reasonOf(kBody, piece, collect), "") << piece;
    ASSERT_EQ(collect.parts.size(), 2u) << piece;
    EXPECT_EQ(collect.parts[0].headers.name, "prod");
    EXPECT_FALSE(collect.parts[0].headers.filename);
    EXPECT_EQ(collect.parts[0].body, "App");
    EXPECT_EQ(collect.parts[1].headers.name, "upload_file_minidump");
    EXPECT_EQ(collect.parts[1].headers.filename.value_or(""), "a \"b\".dmp");
    EXPECT_EQ(collect.parts[1].headers.content_type, "application/octet-stream");
    EXPECT_EQ(collect.parts[1].body, "MDMP\r\n--X\r\n\r\nbinary") << piece;
  }
}

TEST(MultipartReader, RefusalsNameSocorrosReasons) {
  Collect collect;
  EXPECT_EQ(reasonOf("no delimiter at all", 5, collect), "no_boundary");
  EXPECT_EQ(
      reasonOf("--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue", 5, collect),
      "truncated");
  EXPECT_EQ(reasonOf("--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--", 5, collect),
            "bad_part_headers");
  EXPECT_EQ(reasonOf("--XyZ--\r\n", 5, collect), "invalid_payload_structure");
  EXPECT_EQ(reasonOf("--XyZgarbage\r\n", 5, collect), "invalid_payload_structure");
}

TEST(MultipartReader, BoundaryFromContentType) {
  EXPECT_EQ(
      multipartBoundary("multipart/form-data; boundary=---MultipartBoundary-abc---").value_or(""),
      "---MultipartBoundary-abc---");
  EXPECT_EQ(multipartBoundary("Multipart/Form-Data; charset=x; boundary=\"q r\"").value_or(""),
            "q r");
  EXPECT_FALSE(multipartBoundary("multipart/form-data"));
  EXPECT_FALSE(multipartBoundary("application/json; boundary=x"));
}

} // namespace
} // namespace dumpsyms
