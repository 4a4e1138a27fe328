// Where the registry panel connects and as whom: host, repository, user and
// secret, and plain HTTP for loopback hosts. Split from the panel because it
// owns everything that outlives a call: the keychain entry of the secret,
// and the host, repository and user the Studio remembers. The secret never
// goes to the settings file; the rest is written only once a call with it
// has worked, so a typo is not what the next start shows.
#pragma once

#include <QString>
#include <QWidget>

#include "ui/image/registry_lookup.h"
#include "ui/studio_settings.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace tb::ui {

/// A selectable, word-wrapped plain-text label for the registry panel's status
/// lines (never rich text: registry messages are untrusted input).
[[nodiscard]] QLabel* makeRegistryNote(QWidget* parent, const QString& objectName);

class CatalogSession;
class RegistryCredentialStore;

/// The connection half of the registry panel.
class RegistryConnectionFields : public QWidget {
  Q_OBJECT

 public:
  /// `keychainService` names the keychain entries (tests pass their own);
  /// `access` says whether a working connection may be remembered.
  RegistryConnectionFields(CatalogSession& session, SettingsAccess access,
                           const QString& keychainService, QWidget* parent = nullptr);

  /// The request the fields describe now (credentials included).
  [[nodiscard]] RegistryLookupTarget target() const;
  /// A call with `worked` succeeded: keeps its secret in the keychain and
  /// its host, repository and user in the settings.
  void remember(const RegistryLookupTarget& worked);

  /// Where the secrets are kept, and whether a keychain answered.
  [[nodiscard]] RegistryCredentialStore* credentialStore() const { return store_; }

 private:
  void buildFields();
  void fillEndpoints();
  void restoreRemembered();
  void onHostChanged();
  void onCredentialsLoaded(const QString& host, const QString& username, const QString& secret);

  CatalogSession& session_;
  SettingsAccess access_;
  RegistryCredentialStore* store_ = nullptr;
  QComboBox* host_ = nullptr;
  QLineEdit* repository_ = nullptr;
  QLineEdit* user_ = nullptr;
  QLineEdit* secret_ = nullptr;
  QCheckBox* plainHttp_ = nullptr;
  QLabel* insecureWarning_ = nullptr;
  QLabel* storageNote_ = nullptr;
  QString lastHost_;
};

}  // namespace tb::ui
