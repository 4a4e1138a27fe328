// Combo boxes in a form column: by default a combo box asks for its longest
// entry's width ("selective:core_attn,layernorm,mlp_act,head", a long preset
// name), which pushed forms past their column and cut the fields beside
// them. Fitted, they take the width the column gives and elide a long
// entry in the closed box; the open list shows it whole.
#pragma once

class QWidget;

namespace tb::ui {

/// Every combo box under `root` (call once the form is built).
void fitCombosToColumn(QWidget& root, int minimumCharacters = 8);

}  // namespace tb::ui
