// `camber optimize DECK` on a 3-D mesh: a wing's shape in a gradient loop.
//
// The mesh is read in parallel (no rank holds it whole). Each evaluation:
// the FFD box's control-point moves (or the twist at spanwise stations) a
// -> each rank's node rows of the moved mesh (both maps move the volume
// too) -> converged flow
// (SteadyFlow, warm-started) -> CL, CD, CM; their gradients by adjoint
// solves through the same chain; the thickness at stations of the
// planform as exact linear constraints. ShapeDesign runs the optimizer,
// the lift trim, the checkpoints and the restart as in 2-D.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <sstream>

#include "euler_common.hpp"
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/design/wing_thickness.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/design_outputs.hpp>
#include <camber/solvers/euler/deck_keys.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/wing_design.hpp>

namespace camber::app {

namespace fs = std::filesystem;
using namespace euler_app;

int optimize_wing(const deck::Deck& d, const Runtime& runtime, bool restart,
                  mesh::DistributedMesh dm) {
  const MPI_Comm comm = runtime.comm();
  const std::string dir = d.string("output.dir");
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const std::vector<std::string> walls = eu::marker_names(d.string("design.wall"));
  collective_guard(comm, [&] {
    const std::string& p = d.string("design.parametrization");
    if (p != "ffd_volume" && p != "wing_twist")
      d.reject("design.parametrization",
               "'" + p + "' moves a 2-D airfoil's wall; the mesh is 3-D: use ffd_volume (a box "
               "around the wing that moves the mesh inside it) or wing_twist (the sections' "
               "twist at spanwise stations)");
    std::string names;
    for (const mesh::Marker& mk : dm.local().markers()) names += (names.empty() ? "" : ", ") + mk.name;
    if (walls.empty()) d.reject("design.wall", "names no marker; the mesh's markers are: " + names);
    for (const std::string& w : walls)
      if (dm.local().marker_index(w) < 0)
        d.reject("design.wall", "the mesh has no marker '" + w + "'; its markers are: " + names);
  });
  const bool twist = d.string("design.parametrization") == "wing_twist";
  // The twist keeps every section's thickness: no stations to hold.
  const bool thickness = !twist && d.real("optimizer.thickness_fraction") > 0.0;
  // The stations checked against the wing before any flow is solved.
  collective_guard(comm, [&] {
    if (!thickness) return;
    try {
      design::WingThickness(dm, walls, d.reals("optimizer.thickness_etas"),
                            d.reals("optimizer.thickness_chords"));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      d.reject("optimizer.thickness_etas", e.message());
    }
  });

  aero::WingDesignSettings s;
  s.flow = design_flow_settings(d, dm.local(), comm);
  shape_design_settings(d, s, comm);
  s.walls = walls;
  s.parametrization = aero::parametrization_keys().read(d, "design").kind;
  aero::ffd_volume_keys().read(d, "design", s);
  aero::wing_twist_keys().read(d, "design", s);
  if (twist) s.thickness_fraction = 0.0;
  const std::string& move = d.string("design.ffd_volume_move");
  aero::wing_station_keys().read(d, "optimizer", s);
  aero::WingDesign problem(std::move(dm), s);
  check_start(d, problem, comm);
  const index_t n = problem.n_design();
  if (twist) {
    const design::WingTwistAxis& a = problem.twist_axis();
    std::ostringstream etas;
    for (double e : s.twist.stations) etas << (etas.tellp() > 0 ? ", " : "") << e;
    logging::info(CAMBER_MSG(std::setprecision(6)
                             << "twist at " << n << " stations (" << etas.str()
                             << " of the span from y = " << a.lo[1] << " to " << a.hi[1]
                             << ") about the axis x = " << a.x_axis << ", z = " << a.z_axis
                             << ", each within +-" << s.bound << " deg; the mesh at rest "
                             << a.blend_width << " from the walls' box"));
  } else {
    const design::FfdVolumeBox& box = problem.box();
    logging::info(CAMBER_MSG(std::setprecision(6)
                             << "FFD box [" << box.lo[0] << ", " << box.hi[0] << "] x ["
                             << box.lo[1] << ", " << box.hi[1] << "] x [" << box.lo[2] << ", "
                             << box.hi[2] << "], degree (" << s.ffd.degree[0] << ", "
                             << s.ffd.degree[1] << ", " << s.ffd.degree[2] << "), moves in "
                             << move << ": " << n << " variables, each within +-" << s.bound));
  }
  aero::DesignRecordSettings r = design_record_settings(d, walls, s.checkpoint);
  r.station_etas = aero::flow_case_station_keys().read(d, "wing").stations;
  aero::DesignRecord outputs(problem, r, comm);
  const std::vector<double> t0 = problem.thickness_stations().baseline();
  log_baseline(outputs,
               thickness ? CAMBER_MSG(", thinnest station " << *std::min_element(t0.begin(), t0.end())
                                                             << " (" << t0.size() << " stations held at "
                                                             << s.thickness_fraction << " t0)")
                         : std::string());

  if (runtime.rank() == 0) fs::create_directories(dir);
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  // The baseline's pressure at the wing stations (its flow is the one just
  // solved; a restart has them from the first run).
  std::vector<std::string> files;
  if (!restart) files = aero::write_wing_stations(problem, r, "baseline");
  const aero::WingDesignResult result = problem.run(std::ref(outputs), restart);
  for (std::string& f : outputs.write_final(result)) files.push_back(std::move(f));
  // The final design's flow, mesh, stations, ParaView files and thickness.
  const aero::WingOutputs final_outputs = aero::write_final_wing(problem, result, r);
  files.insert(files.end(), final_outputs.files.begin(), final_outputs.files.end());
  const double ratio = final_outputs.thinnest_ratio;
  std::ostringstream geometry;
  if (thickness)
    geometry << std::fixed << std::setprecision(6) << "\n  thinnest t / t0 " << 1.0 << "    "
             << ratio;
  std::ostringstream summary;
  summary << outputs.summary(result, geometry.str(), elapsed()) << aero::output_rows(files);
  logging::info("summary:" + summary.str());
  return result.optimizer.status == opt::Status::evaluation_failed ? 1 : 0;
}

}  // namespace camber::app
