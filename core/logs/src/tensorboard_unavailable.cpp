// TensorBoard event files in a build without libprotobuf
// (TB_WITH_TENSORBOARD=OFF, as on the GPU machine of tests/gpu/run-on-gpu.sh):
// a file is still recognised, from its TFRecord framing and the file-version
// text every writer puts in its first record, so that importing one says
// what this build lacks instead of "no known format".
#include <sstream>
#include <string>
#include <utility>

#include "format_parser.hpp"
#include "tensorboard_follow.hpp"
#include "tfrecord.hpp"

namespace tb::logs::detail {

bool tensorboardClaimsHead(std::string_view head) {
  std::istringstream in{std::string(head)};
  TfRecordReader reader(in, "head", {.maxRecordBytes = head.size(), .maxKeptBytes = head.size()});
  std::string data;
  return reader.next(data) == TfRecordReader::Next::Record &&
         data.find("brain.Event:") != std::string::npos;
}

namespace {

Error unavailable(const std::filesystem::path& path) {
  return makeError(ErrorKind::Runtime,
                   path.string() +
                       ": TensorBoard event files cannot be read by this trainbench, "
                       "built without libprotobuf (TB_WITH_TENSORBOARD=OFF)");
}

}  // namespace

Status readTensorboard(const std::filesystem::path& path, runs::ImportedRun& /*run*/,
                       StepSink& /*sink*/) {
  return unavailable(path);
}

struct TensorboardFollow::State {};

TensorboardFollow::TensorboardFollow(std::filesystem::path target, runs::ImportedRun start,
                                     const WarmUp& warmUp)
    : target_(std::move(target)), start_(std::move(start)), warmUp_(warmUp) {}
TensorboardFollow::~TensorboardFollow() = default;
TensorboardFollow::TensorboardFollow(TensorboardFollow&&) noexcept = default;
TensorboardFollow& TensorboardFollow::operator=(TensorboardFollow&&) noexcept = default;

Expected<TensorboardFollow::Read> TensorboardFollow::readOn() { return unavailable(target_); }

TensorboardFollow::Snapshot TensorboardFollow::snapshot() const {
  return {start_, StepCollector(warmUp_)};
}

}  // namespace tb::logs::detail
