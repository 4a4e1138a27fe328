#include "ui/widgets/combo_width.h"

#include <QComboBox>
#include <QWidget>

namespace tb::ui {

void fitCombosToColumn(QWidget& root, int minimumCharacters) {
  for (QComboBox* combo : root.findChildren<QComboBox*>()) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(minimumCharacters);
  }
}

}  // namespace tb::ui
