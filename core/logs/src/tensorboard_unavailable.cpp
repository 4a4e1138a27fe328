// TensorBoard event files in a build without libprotobuf
// (TB_WITH_TENSORBOARD=OFF, as on the GPU machine of tests/gpu/run-on-gpu.sh):
// a file is still recognised, from its TFRecord framing and the file-version
// text every writer puts in its first record, so that importing one says
// what this build lacks instead of "no known format".
#include <sstream>
#include <string>

#include "format_parser.hpp"
#include "tfrecord.hpp"

namespace tb::logs::detail {

bool tensorboardClaimsHead(std::string_view head) {
  std::istringstream in{std::string(head)};
  TfRecordReader reader(in, "head", {.maxRecordBytes = head.size(), .maxKeptBytes = head.size()});
  std::string data;
  return reader.next(data) == TfRecordReader::Next::Record &&
         data.find("brain.Event:") != std::string::npos;
}

Status readTensorboard(const std::filesystem::path& path, runs::ImportedRun& /*run*/,
                       StepSink& /*sink*/) {
  return makeError(ErrorKind::Runtime,
                   path.string() +
                       ": TensorBoard event files cannot be read by this trainbench, "
                       "built without libprotobuf (TB_WITH_TENSORBOARD=OFF)");
}

}  // namespace tb::logs::detail
