// Registry credentials belong in the system keychain (Secret Service,
// KWallet), never in the settings file: QSettings is a plain-text file in
// the home directory. Where no keychain answers (a CI runner, a desktop
// without a secret service) they are kept in this process's memory only and
// the panel says so, rather than silently writing them somewhere readable.
#pragma once

#include <QObject>
#include <QString>

namespace tb::ui {

/// Where the stored secret lives now.
enum class SecretStorage {
  Unknown,      ///< no keychain call has finished yet
  Keychain,     ///< the system keychain answered
  SessionOnly,  ///< no keychain: memory of this process, gone on exit
};

/// A user name and secret per registry host; asynchronous like QtKeychain.
class RegistryCredentialStore : public QObject {
  Q_OBJECT

 public:
  /// `service` names the keychain entries; tests pass their own.
  explicit RegistryCredentialStore(QString service, QObject* parent = nullptr);

  /// Looks the host up; emits loaded() when something is stored.
  void load(const QString& host);
  /// Stores the credentials for the host (an empty user name removes them).
  void save(const QString& host, const QString& username, const QString& secret);

  [[nodiscard]] SecretStorage storage() const noexcept { return storage_; }
  /// One sentence for the panel about where the secret is kept.
  [[nodiscard]] QString storageNote() const;

 Q_SIGNALS:
  void loaded(const QString& host, const QString& username, const QString& secret);
  void storageChanged();

 private:
  void keychainFailed(const QString& reason);
  void keychainAnswered();

  QString service_;
  SecretStorage storage_ = SecretStorage::Unknown;
  QString unavailableReason_;
};

}  // namespace tb::ui
