// The registry half of the Image page: which tags are really published, for
// which architectures, and what a tag's image declares. The catalog half of
// the page never waits for it: every call runs on RegistryRunner, and when
// the registry cannot be reached the panel says so while the page goes on
// working from the catalog.
#pragma once

#include <QGroupBox>
#include <QString>
#include <optional>

#include "tb/catalog/catalog.hpp"
#include "tb/registry/image_declaration.hpp"
#include "ui/image/registry_connection_fields.h"
#include "ui/image/registry_runner.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tb::ui {

class CatalogSession;
class RegistryTagModel;
class RegistryTagSortProxy;

/// Registry host, repository, credentials, tag list and "Check this tag".
class RegistryPanel : public QGroupBox {
  Q_OBJECT

 public:
  /// `access` says whether a working connection may be remembered;
  /// `keychainService` names the keychain entries (tests pass their own).
  explicit RegistryPanel(CatalogSession& session, SettingsAccess access,
                         QWidget* parent = nullptr,
                         const QString& keychainService = QStringLiteral("TrainBench Studio"));

  /// The checked tag's declaration applied for `arch`, while one is active.
  [[nodiscard]] std::optional<tb::registry::DeclaredRelease> declaredRelease(
      tb::catalog::CpuArch arch) const;
  /// The user chose `catalogTag` in the release table: a declaration of
  /// another release stops applying.
  void releaseChosen(const QString& catalogTag);
  /// Drops the declaration; the verdict goes back to the catalog.
  void clearDeclaration();

  [[nodiscard]] bool isBusy() const noexcept { return runner_->isRunning(); }
  /// The request the fields describe now (credentials included).
  [[nodiscard]] RegistryLookupTarget target() const { return fields_->target(); }

  [[nodiscard]] RegistryConnectionFields* connectionFields() const { return fields_; }
  [[nodiscard]] QComboBox* hostCombo() const { return fields_->hostCombo(); }
  [[nodiscard]] QLineEdit* repositoryEdit() const { return fields_->repositoryEdit(); }
  [[nodiscard]] QLineEdit* userEdit() const { return fields_->userEdit(); }
  [[nodiscard]] QLineEdit* secretEdit() const { return fields_->secretEdit(); }
  [[nodiscard]] QCheckBox* plainHttpBox() const { return fields_->plainHttpBox(); }
  [[nodiscard]] QLabel* insecureWarning() const { return fields_->insecureWarning(); }
  [[nodiscard]] QLabel* storageLabel() const { return fields_->storageLabel(); }
  [[nodiscard]] QPushButton* refreshButton() const { return refresh_; }
  [[nodiscard]] QPushButton* cancelButton() const { return cancel_; }
  [[nodiscard]] QProgressBar* busyIndicator() const { return busy_; }
  [[nodiscard]] QLabel* statusLabel() const { return status_; }
  [[nodiscard]] QTableView* tagView() const { return tagView_; }
  [[nodiscard]] RegistryTagSortProxy* tagProxy() const { return proxy_; }
  [[nodiscard]] QPushButton* checkButton() const { return check_; }
  [[nodiscard]] QPushButton* useCatalogButton() const { return useCatalog_; }
  [[nodiscard]] QLabel* declarationLabel() const { return declaration_; }
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
  RegistryRunner* runner_ = nullptr;
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
