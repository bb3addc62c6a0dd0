#include <camber/io/vtk_session.hpp>

#include <mpi.h>
#include <vtkMPIController.h>
#include <vtkMultiProcessController.h>
#include <vtkSmartPointer.h>

#include <camber/core/error.hpp>

namespace camber::io {

struct VtkSession::Impl {
  vtkSmartPointer<vtkMPIController> controller;  // null if not ours
};

VtkSession::VtkSession() : impl_(std::make_unique<Impl>()) {
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  CAMBER_REQUIRE(mpi_up, "VtkSession: MPI is not initialized; create camber::Runtime first");
  if (vtkMultiProcessController::GetGlobalController() != nullptr) return;
  impl_->controller = vtkSmartPointer<vtkMPIController>::New();
  // 1: MPI was initialized outside VTK, which must not finalize it either.
  impl_->controller->Initialize(nullptr, nullptr, 1);
  vtkMultiProcessController::SetGlobalController(impl_->controller);
}

VtkSession::VtkSession(int& argc, char**& argv) : VtkSession() {
  // MPI has consumed its arguments already (camber::Runtime); VTK ignores
  // them when MPI is initialized externally.
  (void)argc;
  (void)argv;
}

VtkSession::~VtkSession() {
  if (!impl_->controller) return;
  if (vtkMultiProcessController::GetGlobalController() == impl_->controller)
    vtkMultiProcessController::SetGlobalController(nullptr);
  impl_->controller->Finalize(1);
}

bool VtkSession::owns_controller() const noexcept { return impl_->controller != nullptr; }

int VtkSession::rank() const {
  vtkMultiProcessController* c = vtkMultiProcessController::GetGlobalController();
  CAMBER_REQUIRE(c != nullptr, "VtkSession: VTK has no global controller");
  return c->GetLocalProcessId();
}

int VtkSession::size() const {
  vtkMultiProcessController* c = vtkMultiProcessController::GetGlobalController();
  CAMBER_REQUIRE(c != nullptr, "VtkSession: VTK has no global controller");
  return c->GetNumberOfProcesses();
}

}  // namespace camber::io
