// The trainbench executable: all of the CLI lives in tb::cli so that it can
// be tested and reused; this file only hands over the command line.
#include "tb/cli/cli_app.hpp"
#include "tb/common/stop_signals.hpp"

int main(int argc, char** argv) {
  tb::reportFileSizeLimitAsWriteError();
  tb::cli::allowRestart(argv);
  return tb::cli::run(argc, argv);
}
