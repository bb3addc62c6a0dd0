#include <camber/solvers/petsc/petsc_session.hpp>

#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <vector>

#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>

namespace camber::solvers::petsc {

namespace {
// Sessions alive in this process, and whether one of them started PETSc
// (then the last one to end finalizes it). Main thread only.
int g_live_sessions = 0;
bool g_camber_started_petsc = false;
}  // namespace

PetscSession::PetscSession() { start(nullptr, nullptr, {}); }

PetscSession::PetscSession(const std::string& options) {
  start(nullptr, nullptr, options);
}

PetscSession::PetscSession(int& argc, char**& argv, const std::string& options) {
  start(&argc, &argv, options);
}

void PetscSession::start(int* argc, char*** argv, const std::string& options) {
  int mpi_up = 0;
  CAMBER_CHECK_MPI(MPI_Initialized(&mpi_up));
  CAMBER_REQUIRE(mpi_up, "PetscSession needs MPI running: construct camber::Runtime "
                         "before camber::solvers::petsc::PetscSession");
  if (!petsc_active()) {
    // PETSc prints its own message to stderr if initialization fails; no
    // error handler of ours can be installed before it is up.
    const int rc = argc != nullptr ? PetscInitialize(argc, argv, nullptr, nullptr)
                                   : PetscInitializeNoArguments();
    CAMBER_REQUIRE(rc == 0, "PetscInitialize failed with PETSc error code " << rc);
    started_petsc_ = true;
    logging::debug("PETSc initialized");
  }
  CAMBER_CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  if (!options.empty()) {
    // A constructor that throws runs no destructor: undo what we did.
    try {
      CAMBER_CHECK_PETSC(PetscOptionsInsertString(nullptr, options.c_str()));
    } catch (...) {
      (void)PetscPopErrorHandler();
      if (started_petsc_) (void)PetscFinalize();
      throw;
    }
  }
  ++g_live_sessions;
  if (started_petsc_) g_camber_started_petsc = true;
}

PetscSession::~PetscSession() {
  --g_live_sessions;
  if (!petsc_active()) return;  // finalized by a host application
  (void)PetscPopErrorHandler();
  if (g_live_sessions == 0 && g_camber_started_petsc) {
    g_camber_started_petsc = false;
    // Errors here cannot be thrown from a destructor; PETSc prints them.
    (void)PetscFinalize();
    logging::debug("PETSc finalized");
  }
}

bool PetscSession::petsc_active() {
  PetscBool initialized = PETSC_FALSE;
  PetscBool finalized = PETSC_FALSE;
  PetscInitialized(&initialized);
  PetscFinalized(&finalized);
  return initialized && !finalized;
}

int PetscSession::live_sessions() noexcept { return g_live_sessions; }

void set_option_default(const std::string& prefix, const char* name, const char* value) {
  static std::vector<std::string> written;  // options this function set
  const std::string key = "-" + prefix + name;
  PetscBool given = PETSC_FALSE;
  CAMBER_CHECK_PETSC(PetscOptionsHasName(nullptr, nullptr, key.c_str(), &given));
  const bool ours = std::find(written.begin(), written.end(), key) != written.end();
  if (given && !ours) return;
  CAMBER_CHECK_PETSC(PetscOptionsSetValue(nullptr, key.c_str(), value));
  if (!ours) written.push_back(key);
}

}  // namespace camber::solvers::petsc
