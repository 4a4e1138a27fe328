// Typed access to the Studio's QSettings. Every key is declared here, once,
// as a SettingValue with its default and what a stored value must satisfy,
// so a page cannot misspell a key or forget a range check; a read-only mode
// lets `--screenshot` runs restore the user's choices without writing back.
// The key names are what earlier builds wrote and must not change, or users'
// settings stop loading.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantList>

#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

class QSettings;

#include "ui/theme.h"

namespace tb::ui {

/// Whether choices made in this window are written back.
enum class SettingsAccess { ReadWrite, ReadOnly };

/// Writes the values of one save together: QSettings writes its file once
/// per object, so a page saving twenty values does not write it twenty
/// times. A read-only access writes nothing.
class SettingsWriter {
 public:
  explicit SettingsWriter(SettingsAccess access);
  ~SettingsWriter();
  SettingsWriter(const SettingsWriter&) = delete;
  SettingsWriter& operator=(const SettingsWriter&) = delete;

  void write(const char* key, const QVariant& value);

 private:
  std::unique_ptr<QSettings> settings_;  ///< null for a read-only access
};

namespace detail {

/// The stored value of `key`; an invalid QVariant when none is stored.
[[nodiscard]] QVariant readSetting(const char* key);

// QSettings keeps INI values as text, so numbers are parsed and a value
// that is not a number is no value at all (not zero).
template <class T>
[[nodiscard]] std::optional<T> fromStored(const QVariant& stored) {
  if (!stored.isValid()) return std::nullopt;
  if constexpr (std::is_same_v<T, bool>) {
    return stored.toBool();
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, qint64> ||
                       std::is_same_v<T, double>) {
    bool ok = false;
    T value{};
    if constexpr (std::is_same_v<T, int>) value = stored.toInt(&ok);
    if constexpr (std::is_same_v<T, qint64>) value = stored.toLongLong(&ok);
    if constexpr (std::is_same_v<T, double>) value = stored.toDouble(&ok);
    return ok ? std::optional<T>(value) : std::nullopt;
  } else if constexpr (std::is_same_v<T, QString>) {
    return stored.toString();
  } else if constexpr (std::is_same_v<T, QStringList>) {
    return stored.toStringList();
  } else if constexpr (std::is_same_v<T, QByteArray>) {
    return stored.toByteArray();
  } else if constexpr (std::is_same_v<T, QVariantMap>) {
    return stored.toMap();
  } else {
    static_assert(std::is_same_v<T, QVariantList>, "no conversion for this setting type");
    return stored.toList();
  }
}

}  // namespace detail

/// One key of the Studio's settings, after qBittorrent's SettingValue<T>: the
/// key as stored, the value a first start has, and what a stored value must
/// satisfy. A hand-edited or older file cannot put a page in a state it
/// cannot show: a stored value that is not a T, or fails the check, reads as
/// the default.
template <class T>
class SettingValue {
 public:
  using Check = bool (*)(const T&);

  explicit SettingValue(const char* key, T fallback = T{}, Check check = nullptr)
      : key_(key), fallback_(std::move(fallback)), check_(check) {}
  /// A number that must lie in [low, high].
  SettingValue(const char* key, T fallback, T low, T high) requires std::is_arithmetic_v<T>
      : key_(key), fallback_(fallback), range_(std::pair<T, T>(low, high)) {}

  [[nodiscard]] QString key() const { return QString::fromLatin1(key_); }
  [[nodiscard]] const T& fallback() const noexcept { return fallback_; }

  /// The stored value, or the default when none is stored or it is invalid.
  [[nodiscard]] T get() const { return get(fallback_); }
  /// As get(), with a default the caller works out (a preset's shape, the
  /// core's ImageConfig), for keys whose default is not a constant.
  [[nodiscard]] T get(const T& fallback) const {
    const std::optional<T> stored = detail::fromStored<T>(detail::readSetting(key_));
    return stored && accepts(*stored) ? *stored : fallback;
  }
  void set(SettingsWriter& writer, const T& value) const {
    writer.write(key_, QVariant::fromValue(value));
  }

  /// Whether `value` passes the range and the check.
  [[nodiscard]] bool accepts(const T& value) const {
    if constexpr (std::is_arithmetic_v<T>) {
      if (range_ && (value < range_->first || value > range_->second)) return false;
    }
    return check_ == nullptr || check_(value);
  }

 private:
  const char* key_;
  T fallback_;
  Check check_ = nullptr;
  std::optional<std::pair<T, T>> range_;
};

// What some stored names and numbers must be; each asks the code that parses
// the value in earnest (the core, the Memory page's card list).
[[nodiscard]] bool isModelPreset(const QString& name);
[[nodiscard]] bool isMemoryDType(const QString& name);
[[nodiscard]] bool isMemoryProfile(const QString& name);
[[nodiscard]] bool isRecomputePolicy(const QString& text);
[[nodiscard]] bool isEngineRuntime(const QString& name);
[[nodiscard]] bool isMemoryCard(const QString& name);
[[nodiscard]] bool isCustomCardGiB(const double& gib);
[[nodiscard]] bool isPodGpuCount(const int& gpus);
[[nodiscard]] bool isNotEmpty(const QString& text);

/// Every key of the Studio's settings.
namespace keys {

inline constexpr int kIntMax = std::numeric_limits<int>::max();

// The window.
inline const SettingValue<QByteArray> kWindowGeometry{"window/geometry"};
inline const SettingValue<QByteArray> kWindowState{"window/state"};
inline const SettingValue<QString> kWindowPage{"window/page"};
/// Every named splitter's QSplitter::saveState, by its object name.
inline const SettingValue<QVariantMap> kWindowSplitters{"window/splitters"};

// The Image page.
inline const SettingValue<QString> kImageRelease{"image/release"};
inline const SettingValue<QString> kImageDriver{"image/driver"};
inline const SettingValue<bool> kImageHostFromDetection{"image/hostFromDetection", true};
inline const SettingValue<QString> kImageGpu{"image/gpu"};
inline const SettingValue<int> kImageGpuCount{"image/gpuCount", 1, 1, kIntMax};
inline const SettingValue<QString> kImageArch{"image/arch"};  ///< empty: this machine's

// The Image page's registry panel. The secret is never here: it goes to
// the system keychain (RegistryCredentialStore).
inline const SettingValue<QString> kRegistryHost{"registry/host"};
inline const SettingValue<QString> kRegistryRepository{"registry/repository"};
inline const SettingValue<QString> kRegistryUser{"registry/user"};

// The Optimizations page. Defaults are the core's ImageConfig, which the
// page passes to get(); files that have gone since stay listed.
inline const SettingValue<QString> kOptimizationsRegistry{"optimizations/registry"};  ///< "vpc"
inline const SettingValue<QString> kOptimizationsRegion{"optimizations/region", {}, &isNotEmpty};
inline const SettingValue<int> kOptimizationsGpusPerPod{
    "optimizations/gpusPerPod", {}, &isPodGpuCount};
inline const SettingValue<int> kOptimizationsNodes{"optimizations/nodes", {}, 1, 1024};
inline const SettingValue<bool> kOptimizationsCompile{"optimizations/compile"};
inline const SettingValue<bool> kOptimizationsGradientCheckpointing{
    "optimizations/gradientCheckpointing"};
inline const SettingValue<bool> kOptimizationsCheckpointOptimization{
    "optimizations/checkpointOptimization"};
inline const SettingValue<bool> kOptimizationsBf16{"optimizations/bf16"};
inline const SettingValue<int> kOptimizationsZeroStage{"optimizations/zeroStage", {}, 0, 3};
inline const SettingValue<bool> kOptimizationsOffloadOptimizer{"optimizations/offloadOptimizer"};
inline const SettingValue<bool> kOptimizationsOffloadParameters{"optimizations/offloadParameters"};
inline const SettingValue<QString> kOptimizationsModel{"optimizations/model", {}, &isNotEmpty};
inline const SettingValue<int> kOptimizationsMicroBatch{"optimizations/microBatch", {}, 1, 4096};
inline const SettingValue<int> kOptimizationsGradientAccumulation{
    "optimizations/gradientAccumulation", {}, 1, 4096};
inline const SettingValue<int> kOptimizationsSeqLength{"optimizations/seqLength", {}, 1, 1 << 20};
inline const SettingValue<QString> kOptimizationsJobName{"optimizations/jobName", {}, &isNotEmpty};
inline const SettingValue<QStringList> kOptimizationsValidationFiles{
    "optimizations/validationFiles"};
inline const SettingValue<QString> kOptimizationsPreviewTab{"optimizations/previewTab"};

// The Memory page. The model shape defaults to the stored preset's, so the
// page passes its inputs' values to get(); ranges are generous, they only
// keep nonsense out.
inline constexpr qint64 kMemoryWide = qint64{1} << 24;
inline const SettingValue<QString> kMemoryPreset{"memory/preset", {}, &isModelPreset};
inline const SettingValue<qint64> kMemoryVocab{"memory/vocab", {}, 1, kMemoryWide};
inline const SettingValue<qint64> kMemoryDim{"memory/dim", {}, 1, kMemoryWide};
inline const SettingValue<qint64> kMemoryLayers{"memory/layers", {}, 1, 4096};
inline const SettingValue<qint64> kMemoryHeads{"memory/heads", {}, 1, 4096};
inline const SettingValue<qint64> kMemoryKvHeads{"memory/kvHeads", {}, 1, 4096};
inline const SettingValue<qint64> kMemoryFfn{"memory/ffn", {}, 1, kMemoryWide};
inline const SettingValue<qint64> kMemorySeq{"memory/seq", {}, 1, kMemoryWide};
inline const SettingValue<qint64> kMemoryBatch{"memory/batch", {}, 1, qint64{1} << 20};
inline const SettingValue<qint64> kMemoryDp{"memory/dp", {}, 1, qint64{1} << 20};
inline const SettingValue<qint64> kMemoryTp{"memory/tp", {}, 1, 4096};
inline const SettingValue<qint64> kMemoryPp{"memory/pp", {}, 1, 4096};
inline const SettingValue<qint64> kMemoryCp{"memory/cp", {}, 1, 4096};
inline const SettingValue<bool> kMemoryCompile{"memory/compile"};
inline const SettingValue<bool> kMemorySequenceParallel{"memory/sequenceParallel"};
inline const SettingValue<bool> kMemoryFlashAttention{"memory/flashAttention"};
inline const SettingValue<int> kMemoryZero{"memory/zero", {}, 0, 3};
inline const SettingValue<QString> kMemoryDType{"memory/dtype", {}, &isMemoryDType};
inline const SettingValue<QString> kMemoryProfile{"memory/profile", {}, &isMemoryProfile};
inline const SettingValue<QString> kMemoryRuntime{"memory/runtime", {}, &isEngineRuntime};
inline const SettingValue<QString> kMemoryRecompute{"memory/recompute", {}, &isRecomputePolicy};
inline const SettingValue<QString> kMemoryCard{"memory/card", {}, &isMemoryCard};
inline const SettingValue<double> kMemoryCustomGiB{"memory/customGiB", {}, &isCustomCardGiB};

// The Runs page. Values are not checked here: the form applies them through
// its widgets, which clamp numbers and ignore names they do not offer. The
// defaults are RunFormChoices', which the page passes to get().
inline const SettingValue<QString> kRunsPreset{"runs/preset"};
/// The eight shape values as one list, written and read as a whole.
inline const SettingValue<QVariantList> kRunsShape{"runs/shape"};
inline const SettingValue<int> kRunsSteps{"runs/steps"};
inline const SettingValue<int> kRunsThreads{"runs/threads"};
inline const SettingValue<int> kRunsProcesses{"runs/processes"};
inline const SettingValue<QString> kRunsRecompute{"runs/recompute"};
inline const SettingValue<int> kRunsMemoryBudgetMiB{"runs/memoryBudgetMiB"};
inline const SettingValue<QString> kRunsData{"runs/data"};
inline const SettingValue<QString> kRunsDataFile{"runs/dataFile"};
inline const SettingValue<QString> kRunsDevice{"runs/device"};
inline const SettingValue<QString> kRunsRuntime{"runs/runtime"};
inline const SettingValue<bool> kRunsCompile{"runs/compile"};

// The Ablation page: the files it showed (so a restart, and a `--screenshot`
// run, shows the same results) and the last benchmark form.
inline const SettingValue<QStringList> kAblationEngineFiles{"ablation/engineFiles"};
inline const SettingValue<QStringList> kAblationClusterFiles{"ablation/clusterFiles"};
/// Training logs shown, each "LABEL<TAB>GPUS<TAB>PATH" (GPUS 0: the file's).
inline const SettingValue<QStringList> kAblationLogs{"ablation/logs"};
/// Where the file dialogs open; empty: the benchmarks folder.
inline const SettingValue<QString> kAblationLastFolder{"ablation/lastFolder"};
inline const SettingValue<bool> kAblationNormalised{"ablation/normalised", true};
/// Defaults to BenchmarkRequest's, which the page passes to get().
inline const SettingValue<QString> kAblationModel{"ablation/model", {}, &isModelPreset};
inline const SettingValue<int> kAblationRepeats{"ablation/repeats", 3, 1, 20};
inline const SettingValue<int> kAblationSteps{"ablation/steps", 20, 2, 100000};

// The window: File > Open Recent (ui/recent_files.h), most recent first;
// View > Theme (ui/theme.h).
inline const SettingValue<QStringList> kRecentFiles{"window/recentFiles"};
inline const SettingValue<QString> kTheme{"window/theme", QStringLiteral("system"), &isThemeName};

}  // namespace keys

/// What the Image page remembers between sessions.
struct ImagePageChoices {
  QString releaseTag;
  QString driver;
  /// True when the driver and GPU fields hold what detection found, so the
  /// next start may refresh them; false once the user typed their own.
  bool hostFromDetection = true;
  QString gpuName;
  int gpuCount = 1;
  QString arch;  ///< "amd64" or "arm64"; empty: this machine's
};

/// Reads and writes the settings of organization "TrainBench", application
/// "TrainBench Studio". Honours QStandardPaths test mode (Qt stores Linux
/// settings under GenericConfigLocation).
class StudioSettings {
 public:
  explicit StudioSettings(SettingsAccess access = SettingsAccess::ReadWrite);

  [[nodiscard]] SettingsAccess access() const noexcept { return access_; }
  /// Where the settings file is; tests check it is not the user's.
  [[nodiscard]] static QString fileName();

  [[nodiscard]] QByteArray windowGeometry() const;
  [[nodiscard]] QByteArray windowState() const;
  [[nodiscard]] QString lastPage() const;
  [[nodiscard]] QVariantMap splitterStates() const;
  void saveWindow(const QByteArray& geometry, const QByteArray& state, const QString& page,
                  const QVariantMap& splitters);

  [[nodiscard]] ImagePageChoices imagePageChoices() const;
  void saveImagePageChoices(const ImagePageChoices& choices);

 private:
  SettingsAccess access_;
};

}  // namespace tb::ui
