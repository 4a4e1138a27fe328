// The registry half of the Image page: which tags are really published, for
// which architectures, and what a tag's image declares. The catalog half of
// the page never waits for it: every call runs on a BackgroundTask, and when
// the registry cannot be reached the panel says so while the page goes on
// working from the catalog.
#pragma once

#include <QGroupBox>
#include <QString>
#include <optional>

#include "tb/catalog/catalog.hpp"
#include "tb/registry/image_declaration.hpp"
#include "ui/image/registry_calls.h"
#include "ui/image/registry_connection_fields.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tb::ui {

class BackgroundTask;
class CatalogSession;
class RegistryTagModel;
class RegistryTagSortProxy;

/// Registry host, repository, credentials, tag list and "Check this tag".
class RegistryPanel : public QGroupBox {
  Q_OBJECT

 public:
  /// `access` says whether a working connection may be remembered;
  /// `keychainService` names the keychain entries (tests pass their own).
  explicit RegistryPanel(CatalogSession& session, SettingsAccess access, QWidget* parent = nullptr,
                         const QString& keychainService = QStringLiteral("TrainBench Studio"));

  /// The checked tag's declaration applied for `arch`, while one is active.
  [[nodiscard]] std::optional<tb::registry::DeclaredRelease> declaredRelease(
      tb::catalog::CpuArch arch) const;
  /// The user chose `catalogTag` in the release table: a declaration of
  /// another release stops applying.
  void releaseChosen(const QString& catalogTag);
  /// Drops the declaration; the verdict goes back to the catalog.
  void clearDeclaration();

  [[nodiscard]] bool isBusy() const noexcept;
  /// The request the fields describe now (credentials included).
  [[nodiscard]] RegistryLookupTarget target() const { return fields_->target(); }

  /// The tags as the table shows them (sorted, newest first).
  [[nodiscard]] RegistryTagSortProxy* tagProxy() const { return proxy_; }
  [[nodiscard]] RegistryCredentialStore* credentialStore() const {
    return fields_->credentialStore();
  }

 public Q_SLOTS:
  void refresh();
  void checkSelectedTag();
  void cancel();

 Q_SIGNALS:
  /// A tag was checked or its declaration dropped; the verdict must follow.
  void declarationChanged();
  void busyChanged(bool busy);

 private:
  struct ActiveDeclaration {
    QString registryTag;
    QString catalogTag;  ///< empty when the catalog has no such release
    tb::registry::ImageInspection inspection;
  };

  QWidget* buildTagList();
  void onFinished(const RegistryOutcome& outcome);
  void onTagsListed(const RegistryOutcome& outcome);
  void onTagInspected(const RegistryOutcome& outcome);
  void setRunning(bool running);
  void updateButtons();
  [[nodiscard]] QString selectedTag() const;

  CatalogSession& session_;
  /// Refuse: one call at a time; Refresh and Check are disabled while one runs.
  BackgroundTask* calls_ = nullptr;
  RegistryConnectionFields* fields_ = nullptr;
  RegistryTagModel* model_ = nullptr;
  RegistryTagSortProxy* proxy_ = nullptr;
  QPushButton* refresh_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QLabel* status_ = nullptr;
  QTableView* tagView_ = nullptr;
  QPushButton* check_ = nullptr;
  QPushButton* useCatalog_ = nullptr;
  QLabel* declaration_ = nullptr;
  std::optional<ActiveDeclaration> active_;
  RegistryLookupTarget inFlight_;  ///< what the running call asked, to remember if it works
};

}  // namespace tb::ui
