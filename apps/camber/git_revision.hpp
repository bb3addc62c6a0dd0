// The source revision this camber executable was built from ("git describe
// --always --dirty" at build time; empty outside a git checkout). Recorded
// in the model cards that `camber train` writes.
#pragma once

namespace camber::app {
const char* git_revision();
}  // namespace camber::app
