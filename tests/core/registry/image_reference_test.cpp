// Reference parsing decides which host credentials go to, so the host/path
// split is tested on each shape docker accepts.
#include <gtest/gtest.h>

#include "tb/registry/image_reference.hpp"

namespace tb::registry {
namespace {

TEST(ImageReference, HostWithPortRepositoryAndTagAreSplit) {
  auto ref = parseImageReference("127.0.0.1:5000/egslingjun/training-nv-pytorch:25.10-serverless",
                                 TagPolicy::Required);
  ASSERT_TRUE(ref) << ref.error().message;
  EXPECT_EQ(ref->registry, "127.0.0.1:5000");
  EXPECT_EQ(ref->repository, "egslingjun/training-nv-pytorch");
  EXPECT_EQ(ref->tag, "25.10-serverless");
  EXPECT_EQ(ref->manifestReference(), "25.10-serverless");
}

TEST(ImageReference, DockerHubShorthandGetsLibraryNamespace) {
  auto ref = parseImageReference("ubuntu:24.04", TagPolicy::Required);
  ASSERT_TRUE(ref) << ref.error().message;
  EXPECT_EQ(ref->registry, "registry-1.docker.io");
  EXPECT_EQ(ref->repository, "library/ubuntu");
}

TEST(ImageReference, DigestWinsOverTagAsManifestReference) {
  const std::string digest = "sha256:" + std::string(64, 'a');
  auto ref = parseImageReference("localhost/app:1.0@" + digest, TagPolicy::Required);
  ASSERT_TRUE(ref) << ref.error().message;
  EXPECT_EQ(ref->registry, "localhost");
  EXPECT_EQ(ref->manifestReference(), digest);
  EXPECT_EQ(ref->toString(), "localhost/app:1.0@" + digest);
}

TEST(ImageReference, MissingTagIsBadInputWhenRequired) {
  auto ref = parseImageReference("registry.test/app", TagPolicy::Required);
  ASSERT_FALSE(ref);
  EXPECT_EQ(ref.error().kind, ErrorKind::BadInput);
  EXPECT_NE(ref.error().message.find("registry.test/app"), std::string::npos);
}

TEST(ImageReference, TagIsBadInputWhenListingARepository) {
  EXPECT_FALSE(parseImageReference("registry.test/app:1", TagPolicy::Forbidden));
  EXPECT_TRUE(parseImageReference("registry.test/app", TagPolicy::Forbidden));
}

TEST(ImageReference, InvalidPartsAreNamedInTheMessage) {
  auto upper = parseImageReference("registry.test/App:1", TagPolicy::Required);
  ASSERT_FALSE(upper);
  EXPECT_NE(upper.error().message.find("'App'"), std::string::npos) << upper.error().message;
  auto digest = parseImageReference("registry.test/app@sha256:12", TagPolicy::Required);
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("sha256:12"), std::string::npos);
  EXPECT_FALSE(parseImageReference("", TagPolicy::Required));
  EXPECT_FALSE(parseImageReference("registry.test/app:bad tag", TagPolicy::Required));
}

TEST(ImageReference, LoopbackHostsAreRecognisedWithAndWithoutPort) {
  EXPECT_TRUE(isLoopbackRegistry("127.0.0.1:5000"));
  EXPECT_TRUE(isLoopbackRegistry("localhost"));
  EXPECT_TRUE(isLoopbackRegistry("[::1]:5000"));
  EXPECT_FALSE(isLoopbackRegistry("registry-1.docker.io"));
  EXPECT_FALSE(isLoopbackRegistry("127.0.0.1.evil.test:5000"));
}

}  // namespace
}  // namespace tb::registry
