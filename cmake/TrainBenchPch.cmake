# Precompiled headers. Most of the build's time went into parsing the same
# heavy headers again in every source file: the standard library's,
# nlohmann/json, CLI11, GoogleTest, ATen and Qt. Each kind below is
# precompiled once, by the first target that asks for it (its host), and
# every later target of the kind reuses that header (REUSE_FROM).
#
# Reuse needs the host's compiler flags: clang refuses a precompiled header
# built with another position-independence level or sanitizer set, or with a
# macro defined to a different value (GCC silently parses the headers instead).
# So a kind has one host per target type: Qt makes its consumers
# position-independent, -fPIC for libraries and -fPIE for executables. Macros
# the reusing targets define and the host does not are fine for both
# compilers; those every target of a kind shares (the test data folders, the
# Qt rules) have one value throughout.
option(TB_PRECOMPILE_HEADERS "Precompile the heavy headers (LibTorch, Qt, nlohmann/json, CLI11, GoogleTest)" ON)

set(TB_PCH_std
  <algorithm> <array> <chrono> <cmath> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring>
  <filesystem> <fstream> <functional> <iostream> <map> <memory> <optional> <ostream> <set>
  <sstream> <stdexcept> <string> <string_view> <system_error> <utility> <vector>)
set(TB_PCH_core ${TB_PCH_std} <nlohmann/json.hpp>)
set(TB_PCH_cli ${TB_PCH_core} <CLI/CLI.hpp>)
set(TB_PCH_test ${TB_PCH_core} <gtest/gtest.h> <gmock/gmock.h>)
set(TB_PCH_torch ${TB_PCH_core}
  <ATen/ATen.h> <ATen/Parallel.h> <torch/csrc/autograd/custom_function.h>)
set(TB_PCH_torch_test ${TB_PCH_torch} <gtest/gtest.h> <gmock/gmock.h>)
set(TB_PCH_qt ${TB_PCH_core}
  <QtCore/QObject> <QtCore/QString> <QtCore/QStringList> <QtCore/QVariant> <QtCore/QVector>
  <QtCore/QAbstractTableModel> <QtCore/QDir> <QtCore/QFile> <QtCore/QFileInfo>
  <QtWidgets/QWidget> <QtWidgets/QLabel> <QtWidgets/QComboBox> <QtWidgets/QPushButton>
  <QtWidgets/QBoxLayout> <QtWidgets/QLineEdit> <QtWidgets/QSpinBox> <QtWidgets/QTableView>
  <QtWidgets/QGroupBox> <QtWidgets/QCheckBox> <QtWidgets/QHeaderView>)
set(TB_PCH_qt_test ${TB_PCH_qt} <QtTest/QTest> <QtTest/QSignalSpy> <QtCore/QTemporaryDir>)

# tb_precompile_headers(<target> <kind>): kind is one of core, cli, test,
# torch, torch_test, qt, qt_test (the lists above).
function(tb_precompile_headers target kind)
  if(NOT TB_PRECOMPILE_HEADERS)
    return()
  endif()
  if(NOT DEFINED TB_PCH_${kind})
    message(FATAL_ERROR "tb_precompile_headers(${target}): no header kind '${kind}'")
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set(key ${kind}_executable)
  else()
    set(key ${kind}_library)
  endif()
  get_property(host GLOBAL PROPERTY TB_PCH_HOST_${key})
  if(host)
    target_precompile_headers(${target} REUSE_FROM ${host})
  else()
    target_precompile_headers(${target} PRIVATE ${TB_PCH_${kind}})
    set_property(GLOBAL PROPERTY TB_PCH_HOST_${key} ${target})
  endif()
endfunction()
