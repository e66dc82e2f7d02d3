// The S3 pieces the upload client and the S3 store backend share: how a
// store's keys and URLs are spelled, and a directory listing's answer.
#include "common/gzip/gzip.h"
#include "store/s3/s3_answers.h"
#include "store/s3/s3_location.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <sstream>
#include <zlib.h>

namespace dumpsyms {
namespace {

TEST(S3Location, PathStyleUnderAnEndpoint) {
  auto location = S3Location::parse("store", "s3://symbols/release/1.0/", "http://127.0.0.1:9000/",
                                    S3Credentials{"KEY", "SECRET", ""});
  ASSERT_TRUE(bool(location)) << llvm::toString(location.takeError());
  EXPECT_EQ(location->bucket(), "symbols");
  EXPECT_EQ(location->prefix(), "release/1.0");
  EXPECT_EQ(location->describe(), "s3://symbols/release/1.0");
  EXPECT_EQ(location->key("a.so/ABC/a.so.sym"), "release/1.0/a.so/ABC/a.so.sym");
  EXPECT_EQ(location->objectUrl("a b/ID/a+b.sym"),
            "http://127.0.0.1:9000/symbols/release/1.0/a%20b/ID/a%2Bb.sym");
  // Parameters in the order of their names, as Signature V4 signs them.
  EXPECT_EQ(location->listUrl("release/1.0/", "/", "t+1", 1),
            "http://127.0.0.1:9000/symbols?continuation-token=t%2B1&delimiter=%2F&list-type=2"
            "&max-keys=1&prefix=release%2F1.0%2F");
  EXPECT_EQ(location->listUrl("", "", ""), "http://127.0.0.1:9000/symbols?list-type=2&prefix=");
  HttpRequest r = location->request("PUT", location->objectUrl("x"), "abc", 7);
  EXPECT_EQ(r.aws_sigv4, "aws:amz:us-east-1:s3");
  EXPECT_EQ(r.aws_credentials, "KEY:SECRET");
  EXPECT_EQ(r.timeout_seconds, 7u);
  // SHA-256 of "abc" (FIPS 180-2's example).
  EXPECT_EQ(r.headers.front(), "x-amz-content-sha256: "
                               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(S3Location, AwsVirtualHostsAndBadUrls) {
  auto aws = S3Location::parse("store", "s3://bucket", "", S3Credentials{"K", "S", "eu-west-1"});
  ASSERT_TRUE(bool(aws));
  EXPECT_EQ(aws->keyPrefix(), "");
  EXPECT_EQ(aws->objectUrl("m/ID/m.sym"), "https://bucket.s3.eu-west-1.amazonaws.com/m/ID/m.sym");
  for (const char* bad : {"s3://", "s3:///prefix", "http://bucket", "bucket/prefix"}) {
    auto parsed = S3Location::parse("store", bad, "", S3Credentials{});
    ASSERT_FALSE(bool(parsed)) << bad;
    EXPECT_NE(llvm::toString(parsed.takeError()).find(bad), std::string::npos);
  }
  auto ftp = S3Location::parse("store", "s3://b", "ftp://host", S3Credentials{});
  EXPECT_FALSE(bool(ftp));
  llvm::consumeError(ftp.takeError());
}

TEST(S3Location, Digests) {
  // RFC 1321's test suite: MD5("abc").
  EXPECT_EQ(md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5Base64("abc"), "kAFQmDzST7DWlj99KOF/cg==");
}

TEST(ServerAnswers, DirectoryListingPage) {
  // As S3 answers ListObjectsV2 with prefix=p/ and delimiter=/: the
  // request's own <Prefix> is not a name, entities are decoded.
  S3DirectoryPage page = parseDirectoryListingPage(
      "<ListBucketResult><Name>b</Name><Prefix>p/</Prefix><Delimiter>/</Delimiter>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>a&amp;b</NextContinuationToken>"
      "<Contents><Key>p/file&#x41;.txt</Key><ETag>&quot;x&quot;</ETag></Contents>"
      "<CommonPrefixes><Prefix>p/lib&amp;c.so/</Prefix></CommonPrefixes>"
      "<CommonPrefixes><Prefix>p/&#233;/</Prefix></CommonPrefixes></ListBucketResult>");
  EXPECT_EQ(page.keys, (std::vector<std::string>{"p/fileA.txt"}));
  EXPECT_EQ(page.common_prefixes, (std::vector<std::string>{"p/lib&c.so/", "p/\xc3\xa9/"}));
  EXPECT_EQ(page.continuation, "a&b");
  S3DirectoryPage last = parseDirectoryListingPage(
      "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&bogus; &#0; &</Key>"
      "</Contents></ListBucketResult>");
  EXPECT_EQ(last.keys, (std::vector<std::string>{"&bogus; &#0; &"}));
  EXPECT_FALSE(last.continuation);
  EXPECT_TRUE(parseDirectoryListingPage("").keys.empty());
}

TEST(ServerAnswers, ObjectListingPage) {
  // As S3 answers ListObjectsV2 without a delimiter: each object's size,
  // quoted ETag and date; an object without a size is not taken.
  S3ObjectsPage page = parseObjectListingPage(
      "<ListBucketResult><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>t1</NextContinuationToken>"
      "<Contents><Key>p/a&amp;b/ID/a.sym</Key><LastModified>2026-12-05T04:10:09.123Z"
      "</LastModified><ETag>&quot;5f3a&quot;</ETag><Size>1234</Size></Contents>"
      "<Contents><Key>p/x</Key><ETag>\"e\"</ETag><Size>oops</Size></Contents>"
      "<Contents><Key>p/y</Key><Size>0</Size><LastModified>yesterday</LastModified></Contents>"
      "</ListBucketResult>");
  ASSERT_EQ(page.objects.size(), 2u);
  EXPECT_EQ(page.objects[0].key, "p/a&b/ID/a.sym");
  EXPECT_EQ(page.objects[0].size, 1234u);
  EXPECT_EQ(page.objects[0].etag, "\"5f3a\"");
  EXPECT_EQ(page.objects[0].mtime, 1796443809);
  EXPECT_EQ(page.objects[1].key, "p/y");
  EXPECT_EQ(page.objects[1].mtime, 0);
  EXPECT_EQ(page.continuation, "t1");
  EXPECT_EQ(parseIso8601Utc("1970-01-01T00:00:00Z"), 0);
  EXPECT_FALSE(parseIso8601Utc("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parseIso8601Utc("2026-12-05 04:10:09Z"));
}

// One gzip member of `data`, as zlib writes it (RFC 1952).
std::string gzipMember(const std::string& data) {
  z_stream stream = {};
  EXPECT_EQ(deflateInit2(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, data.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

class GunzipFile : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gunzip", dir));
    dir_ = dir.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }

  // The decoded bytes of `encoded`, or the error's text.
  std::string gunzip(const std::string& encoded, uint64_t cap, bool* ok) {
    std::string in = dir_ + "/in.gz", out = dir_ + "/out";
    std::ofstream(in, std::ios::binary) << encoded;
    llvm::Error error = gunzipFile(in, out, {cap, /*concatenated_members=*/true});
    *ok = !error;
    if (error)
      return llvm::toString(std::move(error));
    std::ifstream file(out, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

  std::string dir_;
};

TEST_F(GunzipFile, MembersCapsAndDamage) {
  std::string big(300000, 'x');
  for (size_t i = 0; i < big.size(); i += 7)
    big[i] = char('a' + i % 26);
  bool ok = false;
  EXPECT_EQ(gunzip(gzipMember(big), 1 << 20, &ok), big);
  EXPECT_TRUE(ok);
  // `gzip -c a b > c` concatenates members; gunzip reads them all.
  EXPECT_EQ(gunzip(gzipMember("MODULE ") + gzipMember("Linux\n"), 100, &ok), "MODULE Linux\n");
  EXPECT_TRUE(ok);
  std::string whole = gzipMember(big);
  EXPECT_NE(gunzip(whole, big.size() - 1, &ok).find("inflates to more than"), std::string::npos);
  EXPECT_FALSE(ok);
  gunzip(whole.substr(0, whole.size() / 2), 1 << 20, &ok);
  EXPECT_FALSE(ok) << "a truncated stream";
  gunzip("MODULE Linux x86_64 not gzip\n", 1 << 20, &ok);
  EXPECT_FALSE(ok);
  gunzip("", 1 << 20, &ok);
  EXPECT_FALSE(ok) << "an empty file";
}

} // namespace
} // namespace dumpsyms
