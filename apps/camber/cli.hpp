// The `camber` command line: subcommands, global flags and exit codes.
//
//   camber run DECK         solve the case the deck describes
//   camber check DECK       validate the deck and stop
//   camber deck-reference   print the deck reference (docs/deck-reference.md)
//   camber mesh-info FILE   read a mesh and print counts, markers, quality
//   camber mesh-reorder FILE OUT.su2   the mesh in locality order (mesh/reorder.hpp)
//   camber model-info MODEL print a trained model's card (model_commands.hpp)
//   camber infer MODEL IN -o OUT   batch prediction with a trained model
//   camber export MODEL -o F.onnx  ONNX export of a trained model
//   camber serve MODEL --port P    HTTP/JSON inference server
//   camber quantize MODEL DATA -o OUT   int8 post-training quantization
//   camber --version | --help
//
// Exit codes: 0 success, 1 failure (numerical, I/O), 2 bad input (deck,
// mesh file, command line). Under MPI every rank returns the same code.
#pragma once

#include <camber/core/runtime.hpp>

namespace camber::app {

int run_cli(int argc, char** argv, const Runtime& runtime);

}  // namespace camber::app
