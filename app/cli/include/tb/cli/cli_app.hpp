// Entry point of the trainbench command line. The streams are parameters so
// that the whole CLI can be driven in process as well as from main().
#pragma once

#include <iostream>

namespace tb::cli {

/// Parses the command line, runs the chosen command and returns the process
/// exit code of the CLI contract (0 ok, 1 failure, 2 bad input, 3 check said no).
int run(int argc, const char* const* argv, std::ostream& out = std::cout,
        std::ostream& err = std::cerr);

/// Same as above, for main()'s argv type.
inline int run(int argc, char** argv) { return run(argc, static_cast<const char* const*>(argv)); }

/// For main() only, before run(): lets `trainbench run` start the process
/// again with OpenBLAS's kernels for this CPU where the library fell back to
/// its generic ones (tb/engine/blas_kernels.hpp). The CLI driven in process,
/// as tests drive it, never replaces its process, since nothing calls this.
void allowRestart(char** argv);

}  // namespace tb::cli
