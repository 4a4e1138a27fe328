// A remembered host (the "registry/" keys of studio_settings.h) that is one
// of the catalog's endpoints selects that entry; any other is typed into the
// editable combo, as the user typed it.
#include "ui/image/registry_connection_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

#include "tb/registry/image_reference.hpp"
#include "ui/catalog_session.h"
#include "ui/image/registry_credential_store.h"
#include "ui/image/registry_endpoints.h"
#include "ui/qt_text.h"

namespace tb::ui {

RegistryConnectionFields::RegistryConnectionFields(CatalogSession& session, SettingsAccess access,
                                                   const QString& keychainService, QWidget* parent)
    : QWidget(parent),
      session_(session),
      access_(access),
      store_(new RegistryCredentialStore(keychainService, this)) {
  buildFields();
  connect(store_, &RegistryCredentialStore::storageChanged, this,
          [this] { storageNote_->setText(store_->storageNote()); });
  connect(store_, &RegistryCredentialStore::loaded, this,
          &RegistryConnectionFields::onCredentialsLoaded);
  fillEndpoints();
  restoreRemembered();
  onHostChanged();
}

void RegistryConnectionFields::buildFields() {
  host_ = new QComboBox(this);
  host_->setObjectName(QStringLiteral("registryHost"));
  host_->setEditable(true);
  host_->setInsertPolicy(QComboBox::NoInsert);
  host_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  host_->setMinimumContentsLength(24);
  repository_ = new QLineEdit(this);
  repository_->setObjectName(QStringLiteral("registryRepository"));
  user_ = new QLineEdit(this);
  user_->setObjectName(QStringLiteral("registryUser"));
  user_->setPlaceholderText(tr("anonymous"));
  secret_ = new QLineEdit(this);
  secret_->setObjectName(QStringLiteral("registrySecret"));
  secret_->setEchoMode(QLineEdit::Password);
  secret_->setPlaceholderText(tr("password or access token"));
  plainHttp_ = new QCheckBox(tr("Plain HTTP, no TLS (registry on this machine only)"), this);
  plainHttp_->setObjectName(QStringLiteral("registryPlainHttp"));
  insecureWarning_ = makeRegistryNote(this, QStringLiteral("registryInsecureWarning"));
  QFont loud = insecureWarning_->font();
  loud.setBold(true);
  insecureWarning_->setFont(loud);
  QPalette warningPalette = insecureWarning_->palette();
  warningPalette.setColor(QPalette::WindowText, QColor(0xc5, 0x30, 0x30));
  insecureWarning_->setPalette(warningPalette);
  storageNote_ = makeRegistryNote(this, QStringLiteral("registryStorageNote"));
  storageNote_->setText(store_->storageNote());
  storageNote_->setForegroundRole(QPalette::PlaceholderText);

  auto* credentials = new QHBoxLayout;
  credentials->addWidget(user_, 2);
  credentials->addWidget(secret_, 3);
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->addRow(tr("Registry"), host_);
  form->addRow(tr("Repository"), repository_);
  form->addRow(tr("Sign in"), credentials);
  form->addRow(QString(), storageNote_);
  form->addRow(QString(), plainHttp_);
  form->addRow(QString(), insecureWarning_);

  connect(host_, &QComboBox::currentTextChanged, this, &RegistryConnectionFields::onHostChanged);
  connect(host_, qOverload<int>(&QComboBox::activated), this, [this](int row) {
    const QString repository = host_->itemData(row).toString();
    if (!repository.isEmpty()) repository_->setText(repository);
  });
  connect(plainHttp_, &QCheckBox::toggled, this, &RegistryConnectionFields::onHostChanged);
}

void RegistryConnectionFields::fillEndpoints() {
  for (const RegistryEndpoint& endpoint : registryEndpoints(session_.catalog())) {
    host_->addItem(endpoint.host, endpoint.repository);
    host_->setItemData(host_->count() - 1, endpoint.description, Qt::ToolTipRole);
  }
  if (host_->count() > 0) {
    host_->setCurrentIndex(0);
    repository_->setText(host_->itemData(0).toString());
  }
}

void RegistryConnectionFields::restoreRemembered() {
  const QString host = keys::kRegistryHost.get().trimmed();
  if (host.isEmpty()) return;
  const int known = host_->findText(host);
  if (known >= 0) {
    host_->setCurrentIndex(known);
  } else {
    host_->setEditText(host);
  }
  repository_->setText(keys::kRegistryRepository.get());
  user_->setText(keys::kRegistryUser.get());
}

void RegistryConnectionFields::onHostChanged() {
  const QString host = host_->currentText().trimmed();
  const bool loopback = tb::registry::isLoopbackRegistry(toStdString(host));
  plainHttp_->setEnabled(loopback);
  if (!loopback && plainHttp_->isChecked()) plainHttp_->setChecked(false);
  insecureWarning_->setVisible(plainHttp_->isChecked());
  insecureWarning_->setText(
      tr("INSECURE: plain HTTP to %1 without TLS; the password and the answers travel "
         "unencrypted. Allowed only because %1 is this machine.")
          .arg(host));
  if (host != lastHost_) {
    lastHost_ = host;
    store_->load(host);
  }
}

void RegistryConnectionFields::onCredentialsLoaded(const QString& host, const QString& username,
                                                   const QString& secret) {
  // Never overwrite what the user is typing; a remembered user name is
  // completed with its secret.
  if (host != host_->currentText().trimmed() || !secret_->text().isEmpty()) return;
  if (!user_->text().isEmpty() && user_->text() != username) return;
  user_->setText(username);
  secret_->setText(secret);
}

RegistryLookupTarget RegistryConnectionFields::target() const {
  RegistryLookupTarget target;
  target.host = toStdString(host_->currentText().trimmed());
  target.repository = toStdString(repository_->text().trimmed());
  if (!user_->text().trimmed().isEmpty()) {
    target.credentials = tb::registry::Credentials{toStdString(user_->text().trimmed()),
                                                   toStdString(secret_->text())};
  }
  target.plainHttp = plainHttp_->isChecked();
  return target;
}

void RegistryConnectionFields::remember(const RegistryLookupTarget& worked) {
  if (worked.credentials) {
    store_->save(toQString(worked.host), toQString(worked.credentials->username),
                 toQString(worked.credentials->password));
  }
  SettingsWriter out(access_);
  keys::kRegistryHost.set(out, toQString(worked.host));
  keys::kRegistryRepository.set(out, toQString(worked.repository));
  keys::kRegistryUser.set(out,
                          worked.credentials ? toQString(worked.credentials->username) : QString());
}

QLabel* makeRegistryNote(QWidget* parent, const QString& objectName) {
  auto* label = new QLabel(parent);
  label->setObjectName(objectName);
  label->setTextFormat(Qt::PlainText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace tb::ui
