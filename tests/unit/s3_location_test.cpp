// The S3 pieces the upload client and the S3 store backend share: how a
// store's keys and URLs are spelled, and a directory listing's answer.
#include "upload/s3_location.h"
#include "upload/server_answers.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(location->listUrl("release/1.0/", "/", "t+1"),
            "http://127.0.0.1:9000/symbols?list-type=2&prefix=release%2F1.0%2F&delimiter=%2F"
            "&continuation-token=t%2B1");
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

} // namespace
} // namespace dumpsyms
