// `camber sample` for an euler deck: steady flows over a Latin-hypercube
// design of (Mach, alpha) and, with sample.shape, of the design section's
// shape variables, solved by groups of ranks at once, written as an nn data
// set (inputs mach, alpha_deg[, shape_0 ..]; outputs CL, CD, CM[, t_max])
// for `camber train`. With sample.gradients (implied by sample.shape) every
// sample also carries the gradients of its outputs with respect to every
// input: one adjoint solve per force coefficient, over all inputs at once
// (aero::AirfoilDesign::sample). Every finished flow is recorded in
// <dir>/<case>_samples.csv (rewritten atomically after each round), and a
// run on the same deck continues with the flows that file does not hold
// yet.
#include "euler_common.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/ensemble.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/deck_keys.hpp>
#include <camber/nn/io/sample_campaign.hpp>
#include <camber/nn/sampling.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

// The sample space from the deck, checked (at its keys) against the
// design section, then the sampler on the group's mesh: with sample.shape
// or gradients the design section's parametrization is built on it.
std::unique_ptr<aero::AirfoilSampler> make_sampler(const deck::Deck& d, const euler_app::FlowSetup& setup,
                                                   MPI_Comm comm) {
  const aero::AirfoilSampleSpace space = aero::airfoil_sample_space_keys().read(d, "sample");
  aero::AirfoilDesignSettings settings;
  aero::design_bound_keys().read(d, "design", settings);
  collective_guard(comm, [&] {
    aero::validate_airfoil_sample_space(space, settings.bound, d.rejecter("sample"), "design.bound");
    if (!space.shape.empty() && d.string("design.parametrization") == "ffd_volume")
      d.reject("design.parametrization",
               "camber sample varies the shape of 2-D meshes (hicks_henne, cst or ffd)");
    if (space.with_gradients() && d.boolean("flow.far_field_vortex"))
      d.reject("flow.far_field_vortex",
               "the sampled gradients hold the far field fixed, so they would not be the "
               "derivative of a lift-dependent far field; use a far field of many chords");
  });
  settings.flow = euler_app::design_flow_settings(d, setup.dm.local(), setup.dm.comm());
  settings.wall = aero::parametrization_keys().read(d, "design").wall;
  settings.deformation = euler_app::deformation_options(d);
  std::unique_ptr<design::ShapeParametrization> shape;
  if (space.with_gradients()) shape = euler_app::shape_parametrization(d, setup.dm, setup.dm.comm());
  return std::make_unique<aero::AirfoilSampler>(setup.dm, space, settings, std::move(shape));
}

}  // namespace

namespace euler_app {

FlowSetup flow_setup(const deck::Deck& d, MPI_Comm comm) {
  FlowSetup s;
  s.dm = build_distributed_mesh(d, comm, 2, "camber sample");
  s.conditions = boundary_conditions(d, s.dm.local(), comm);
  return s;
}

eu::SteadyResult solve_flow_at(const deck::Deck& d, FlowSetup& setup, double mach,
                               double alpha_deg) {
  eu::FlowConditions flow = flow_conditions(d);
  flow.mach = mach;
  flow.alpha_deg = alpha_deg;
  eu::Discretization disc(setup.dm, flow, setup.conditions, flux_scheme(d), spatial_options(d));
  Tensor U = disc.free_stream_field();
  ScopedTimer t("solve");
  return eu::solve_steady(disc, U, steady_options(d), {});
}

}  // namespace euler_app

int sample_euler(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  using namespace euler_app;
  const MPI_Comm comm = runtime.comm();
  nn::io::SampleCampaignSettings cs;
  nn::io::sample_campaign_keys().read(d, "sample", cs);
  nn::io::sample_group_keys().read(d, "sample", cs);
  const int rps = cs.ranks_per_sample;
  collective_guard(comm, [&] {
    nn::io::validate_sample_campaign(cs, runtime.size(), d.rejecter("sample"), "sample.");
  });
  const nn::io::SampleGroups groups(comm, rps);

  solvers::petsc::PetscSession petsc(options.petsc_options);
  // Each group's flows: from free stream at each (mach, alpha) without
  // gradients; with them (and with shape variables) the design problem of
  // `camber optimize` on the group's ranks, warm-started from its last flow.
  FlowSetup setup = flow_setup(d, groups.comm());
  std::unique_ptr<aero::AirfoilSampler> sampler = make_sampler(d, setup, comm);
  const aero::AirfoilSampler& space = *sampler;

  const std::string name = d.string("case"), dir = d.string("output.dir");
  cs.ranges = space.ranges();
  cs.inputs = space.inputs();
  cs.outputs = space.outputs();
  cs.gradients = space.gradients();
  cs.record_path = dir + "/" + name + "_samples.csv";
  // The design and what its flows depend on (the mesh's cell count, the
  // scheme's order and limiter): a continued run on another grid or
  // scheme is refused instead of mixing flows of two discretizations.
  cs.identity = CAMBER_MSG("# design count=" << cs.count << " seed=" << cs.seed << " "
                                              << space.identity(d.string("design.parametrization")));
  nn::io::SampleCampaign campaign(cs, groups);
  logging::info(CAMBER_MSG("sample: " << cs.count << " flows (Latin hypercube, seed " << cs.seed
                                      << ") over " << space.ranges().size() << " inputs"
                                      << (space.n_shape() > 0 ? " (" + std::to_string(space.n_shape()) +
                                                                  " shape variables, " +
                                                                  d.string("design.parametrization") + ")"
                                                            : std::string())
                                      << (space.gradients() ? ", with adjoint gradients" : "") << ", "
                                      << campaign.done_before() << " done before, "
                                      << campaign.pending() << " to solve by " << groups.count()
                                      << (groups.count() == 1 ? " group" : " groups") << " of " << rps
                                      << (rps == 1 ? " rank" : " ranks")));

  // One flow: CL, CD, CM (and t_max), with gradients in (mach, alpha,
  // shape..) when sampled.
  campaign.run([&](const std::vector<double>& x, int) {
    ScopedTimer t("solve");
    aero::FlowSample f = (*sampler)(x);
    return nn::io::Sample{std::move(f.outputs), std::move(f.gradients), f.converged, f.iterations};
  });
  sampler.reset();

  // The data set: converged flows only.
  const std::string h5 = dir + "/" + name + "_samples.h5";
  const int failed = campaign.write_dataset(h5, deck::deck_text(d));
  const std::string left_out =
      failed > 0 ? ", " + std::to_string(failed) + " not converged and left out" : std::string();
  logging::info(CAMBER_MSG("wrote " << h5 << " (" << campaign.total() - failed << " flows" << left_out
                                    << (cs.gradients ? ", with gradients" : "") << ") and "
                                    << cs.record_path));
  return 0;
}

}  // namespace camber::app
