// The files a user pastes or saves to run the image with its optimizations
// switched on the way its notes ask. Structured artifacts are built as
// documents (nlohmann/json, yaml-cpp) and serialised by those libraries, so
// quoting and escaping are never hand-made.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/config/image_config.hpp"

namespace tb::config {

/// The kinds of artifact, in the order they are listed and saved.
enum class ArtifactKind { Env, Docker, Kubernetes, DeepSpeed, TrainingArgs, Launch, Slurm };

/// All kinds, in display order.
[[nodiscard]] const std::vector<ArtifactKind>& allArtifactKinds();
/// "env", "docker", "k8s", "deepspeed", "training-args", "launch", "slurm".
[[nodiscard]] std::string_view toString(ArtifactKind kind) noexcept;
/// The inverse of toString; BadInput names the text and the known names.
[[nodiscard]] Expected<ArtifactKind> parseArtifactKind(std::string_view text);

/// One generated file.
struct Artifact {
  ArtifactKind kind = ArtifactKind::Env;
  std::string fileName;  ///< name to save it under, "trainbench.env"
  std::string content;   ///< ends with a newline
};

/// Environment variables the image reads, in file order.
struct EnvVar {
  std::string name;
  std::string value;
};

/// The variables every artifact sets (env file, docker -e, Kubernetes env).
[[nodiscard]] std::vector<EnvVar> imageEnvironment(const ResolvedConfig& resolved);

[[nodiscard]] Artifact envFileArtifact(const ResolvedConfig& resolved);
[[nodiscard]] Artifact dockerRunArtifact(const ResolvedConfig& resolved);
/// A Pod for one node; a headless Service plus an indexed Job for several.
[[nodiscard]] Artifact kubernetesArtifact(const ResolvedConfig& resolved);
[[nodiscard]] Artifact deepSpeedArtifact(const ResolvedConfig& resolved);
[[nodiscard]] Artifact trainingArgsArtifact(const ResolvedConfig& resolved);
/// The benchmark, the embedded engine trained data-parallel and the torchrun
/// command, as a shell script.
[[nodiscard]] Artifact launchArtifact(const ResolvedConfig& resolved);
/// An sbatch script: one launcher per node in the image (pyxis/enroot), the
/// embedded engine's data-parallel run, then torchrun.
[[nodiscard]] Artifact slurmArtifact(const ResolvedConfig& resolved);

/// How a multi-node command refers to the node rank and master address:
/// "${NODE_RANK}" in a shell, "$(NODE_RANK)" in Kubernetes args.
enum class VariableStyle { Shell, Kubernetes };

/// The argv of torchrun for this configuration, shared by docker run, the
/// manifest, the launch script and the sbatch script.
[[nodiscard]] std::vector<std::string> torchrunArguments(const ResolvedConfig& resolved,
                                                         VariableStyle style);

/// The argv of `trainbench run` training the embedded engine data-parallel at
/// this configuration's shape, one launcher per node (docs/CLI.md, "Data
/// parallelism"), shared by the launch script, the sbatch script and the
/// manifest's comment.
[[nodiscard]] std::vector<std::string> trainbenchRunArguments(const ResolvedConfig& resolved,
                                                              VariableStyle style);

/// One artifact by kind.
[[nodiscard]] Artifact generateArtifact(const ResolvedConfig& resolved, ArtifactKind kind);
/// Every artifact, in allArtifactKinds() order.
[[nodiscard]] std::vector<Artifact> generateArtifacts(const ResolvedConfig& resolved);

/// Quotes a word for a POSIX shell only when it needs it.
[[nodiscard]] std::string shellQuote(std::string_view word);

}  // namespace tb::config
