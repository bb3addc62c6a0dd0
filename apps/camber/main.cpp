// camber — the command-line driver. See `camber --help` and docs/.
#include "cli.hpp"
#include <camber/core/runtime.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(),
                             [&] { return camber::app::run_cli(argc, argv, runtime); });
}
