// The problems `camber run` can solve, and the deck each one reads.
//
// A Problem bundles what the command line needs to know of one kind of
// case: its name (the deck's `problem:` value), a one-line summary, the deck
// sections it declares, checks across its keys, and the run itself. The CLI
// knows problems only through this list, so adding a problem is adding one
// entry to problems() (problems.cpp), with no branch on its name anywhere.
//
// A deck is validated against the schema of the problem it names: the
// common keys (case, problem, output) plus that problem's own sections, so
// a section of another problem is an unknown key there, and `camber check`
// checks only what the chosen problem reads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/core/runtime.hpp>

namespace camber::app {

// Options of `camber run` that reach every problem.
struct RunOptions {
  std::string petsc_options;  // --petsc-options
  bool restart = false;       // --restart: continue from the case's last state file
};

struct Problem {
  std::string name;     // the value of `problem:` in a deck
  std::string summary;  // one line for the deck reference and --help
  // Declares the problem's sections (mesh, solver, ...) in the schema.
  std::function<void(deck::Schema&)> declare;
  // Checks that span keys (may be empty); throws bad_input via Deck::reject.
  std::function<void(const deck::Deck&)> validate;
  // Runs the case (collective); returns the exit code.
  std::function<int(const deck::Deck&, const Runtime&, const RunOptions&)> run;
  // Whether run() can continue from a state file (--restart).
  bool restarts = false;
  // `camber optimize` (may be empty: the problem has no design loop).
  // Collective; returns the exit code. RunOptions::restart continues from
  // the optimization's checkpoint.
  std::function<int(const deck::Deck&, const Runtime&, const RunOptions&)> optimize;
  // `camber train` (may be empty: the problem trains no network). Collective;
  // RunOptions::restart continues from the training checkpoint.
  std::function<int(const deck::Deck&, const Runtime&, const RunOptions&)> train;
  // `camber sample` (may be empty): solves a design of experiments and
  // writes a data set; continues where an interrupted run stopped.
  std::function<int(const deck::Deck&, const Runtime&, const RunOptions&)> sample;
};

// Every problem, in the order of the deck reference.
const std::vector<Problem>& problems();
// The problem called `name`, or nullptr.
const Problem* find_problem(const std::string& name);

// The common keys plus `problem`'s sections (or, for nullptr, the common
// keys alone, which is what reports an unknown or missing `problem:`).
deck::Schema schema_for(const Problem* problem);

// Reads the deck at `path` and validates it against the schema of the
// problem it names, then that problem's own checks. bad_input errors name
// the file, line and key. Not collective (callers wrap it in
// collective_guard).
deck::Deck load_case_deck(const std::string& path);

// docs/deck-reference.md: the common keys, then each problem's sections.
std::string deck_reference();

}  // namespace camber::app
