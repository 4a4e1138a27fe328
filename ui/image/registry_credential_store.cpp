// One keychain entry per host holds {"username","secret"} as JSON, so the
// user name needs no settings key either. Every save also goes to the
// session memory first: a refresh right after typing must work even while
// the keychain job is still running or after it failed. Insecure fallback
// (QtKeychain's plain-text file) is switched off explicitly. Jobs have no
// parent and delete themselves when done: libsecret calls back into a job
// even after its parent is gone, so a parented job would be used after free.
#include "ui/image/registry_credential_store.h"

#include <qt6keychain/keychain.h>

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>

namespace tb::ui {
namespace {

struct SessionCredentials {
  QString username;
  QString secret;
};

// Process-wide, so every panel of this run sees what another one stored.
QHash<QString, SessionCredentials>& sessionMemory() {
  static QHash<QString, SessionCredentials> memory;
  return memory;
}

QString entryKey(const QString& host) { return QStringLiteral("registry:") + host; }

}  // namespace

RegistryCredentialStore::RegistryCredentialStore(QString service, QObject* parent)
    : QObject(parent), service_(std::move(service)) {}

QString RegistryCredentialStore::storageNote() const {
  switch (storage_) {
    case SecretStorage::Keychain: return tr("The password is stored in the system keychain.");
    case SecretStorage::SessionOnly:
      return tr("No keychain service is available (%1): the password is kept for this session "
                "only and asked again after a restart.")
          .arg(unavailableReason_);
    case SecretStorage::Unknown: break;
  }
  return tr("The password goes to the system keychain, never to the settings file.");
}

void RegistryCredentialStore::keychainFailed(const QString& reason) {
  unavailableReason_ = reason.isEmpty() ? tr("no answer") : reason;
  if (storage_ == SecretStorage::SessionOnly) return;
  storage_ = SecretStorage::SessionOnly;
  Q_EMIT storageChanged();
}

void RegistryCredentialStore::keychainAnswered() {
  if (storage_ == SecretStorage::Keychain) return;
  storage_ = SecretStorage::Keychain;
  Q_EMIT storageChanged();
}

void RegistryCredentialStore::load(const QString& host) {
  if (host.isEmpty()) return;
  if (const auto found = sessionMemory().constFind(host); found != sessionMemory().constEnd()) {
    Q_EMIT loaded(host, found->username, found->secret);
    return;
  }
  if (storage_ == SecretStorage::SessionOnly) return;
  auto* job = new QKeychain::ReadPasswordJob(service_);
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(entryKey(host));
  connect(job, &QKeychain::Job::finished, this, [this, host](QKeychain::Job* finished) {
    if (finished->error() == QKeychain::EntryNotFound) {
      keychainAnswered();
      return;
    }
    if (finished->error() != QKeychain::NoError) {
      keychainFailed(finished->errorString());
      return;
    }
    keychainAnswered();
    const auto* read = static_cast<QKeychain::ReadPasswordJob*>(finished);
    const QJsonObject entry = QJsonDocument::fromJson(read->textData().toUtf8()).object();
    const QString username = entry.value(QStringLiteral("username")).toString();
    if (username.isEmpty()) return;
    const QString secret = entry.value(QStringLiteral("secret")).toString();
    sessionMemory().insert(host, {username, secret});
    Q_EMIT loaded(host, username, secret);
  });
  job->start();
}

void RegistryCredentialStore::save(const QString& host, const QString& username,
                                   const QString& secret) {
  if (host.isEmpty()) return;
  if (username.isEmpty()) {
    sessionMemory().remove(host);
  } else {
    sessionMemory().insert(host, {username, secret});
  }
  if (storage_ == SecretStorage::SessionOnly) return;
  QKeychain::Job* job = nullptr;
  if (username.isEmpty()) {
    auto* remove = new QKeychain::DeletePasswordJob(service_);
    job = remove;
  } else {
    auto* write = new QKeychain::WritePasswordJob(service_);
    const QJsonObject entry{{QStringLiteral("username"), username},
                            {QStringLiteral("secret"), secret}};
    write->setTextData(QString::fromUtf8(QJsonDocument(entry).toJson(QJsonDocument::Compact)));
    job = write;
  }
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(entryKey(host));
  connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job* finished) {
    if (finished->error() == QKeychain::NoError || finished->error() == QKeychain::EntryNotFound) {
      keychainAnswered();
    } else {
      keychainFailed(finished->errorString());
    }
  });
  job->start();
}

}  // namespace tb::ui
