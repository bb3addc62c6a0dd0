#include "design_outputs.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/runtime.hpp>
#include <camber/design/airfoil_section.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/mesh/su2_writer.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include <camber/solvers/aero/wing_sections.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::aero {

namespace {

// `<dir>/<name><suffix>`.
std::string output_path(const DesignRecordSettings& s, const std::string& suffix) {
  return s.dir + "/" + s.name + suffix;
}

// The pressure of `flow` at the stations: `<dir>/<stem>_stations.csv`.
std::vector<std::string> write_stations(euler::SteadyFlow& flow, const DesignRecordSettings& s,
                                        const std::string& stem) {
  if (s.station_etas.empty()) return {};
  const std::vector<SectionPoint> points =
      wing_sections(flow.discretization(), flow.state(), s.walls, s.station_etas);
  const SpanLoad load = span_load(flow.discretization(), flow.state(), s.walls, span_load_strips);
  const MPI_Comm comm = flow.distributed_mesh().comm();
  collective_guard(comm, [&] {
    if (comm_rank(comm) == 0) {
      write_station_csv(s.dir, stem, points, s.station_etas);
      write_span_load_csv(s.dir, stem, load);
    }
  });
  return {s.dir + "/" + stem + "_stations.csv", s.dir + "/" + stem + "_span_load.csv"};
}

}  // namespace

std::vector<std::string> write_wing_stations(WingDesign& problem, const DesignRecordSettings& settings,
                                             const std::string& which) {
  return write_stations(problem.flow(), settings, settings.name + "_" + which);
}

WingOutputs write_final_wing(WingDesign& problem, const WingDesignResult& result,
                             const DesignRecordSettings& settings) {
  const DesignRecordSettings& s = settings;
  WingOutputs out;
  // The best design's flow on its mesh (from the flow the run ended with:
  // at most a few Newton steps), for the stations and ParaView.
  euler::SteadyFlow& flow = problem.flow();
  const MPI_Comm comm = flow.distributed_mesh().comm();
  flow.rank_coefficients(result.final_rows, result.final_alpha_deg);
  const euler::Discretization& disc = flow.discretization();
  // The final mesh, written by every rank its part (SU2, for further runs).
  out.files.push_back(output_path(s, "_final.su2"));
  mesh::write_su2(disc.mesh(), out.files.back());
  for (std::string& f : write_stations(flow, s, s.name + "_final")) out.files.push_back(std::move(f));
  if (s.paraview) {
    const std::vector<io::Field> fields = flow_fields(disc, flow.state());
    io::write_pvtu(output_path(s, "_final"), disc.mesh().owned_piece(fields), comm);
    out.files.push_back(output_path(s, "_final.pvtu"));
    for (const std::string& w : s.walls) {
      io::write_pvtp(output_path(s, "_final_" + w), disc.mesh().marker_surface(w, fields), comm);
      out.files.push_back(output_path(s, "_final_" + w + ".pvtp"));
    }
  }
  // The thickness at every station, baseline and best design.
  const std::vector<design::WingStation>& st = problem.thickness_stations().stations();
  std::ostringstream t;
  t << "eta,x_over_c,x,y,t0,t,ratio\n" << std::setprecision(10);
  for (size_t k = 0; k < st.size(); ++k) {
    const double tk = result.final_thickness[k], t0k = result.baseline_thickness[k];
    out.thinnest_ratio = std::min(out.thinnest_ratio, tk / t0k);
    t << st[k].eta << ',' << st[k].x_over_c << ',' << st[k].x << ',' << st[k].y << ',' << t0k << ','
      << tk << ',' << tk / t0k << '\n';
  }
  if (!st.empty()) {
    out.files.push_back(output_path(s, "_thickness.csv"));
    collective_guard(comm, [&] {
      if (comm_rank(comm) == 0) write_file_atomically(out.files.back(), t.str());
    });
  }
  return out;
}

std::vector<std::string> write_final_airfoil(AirfoilDesign& problem, const AirfoilDesignResult& result,
                                             const DesignRecordSettings& settings) {
  const MPI_Comm comm = problem.flow().distributed_mesh().comm();
  const std::vector<std::string> files{output_path(settings, "_final.dat"),
                                       output_path(settings, "_final.su2")};
  collective_guard(comm, [&] {
    if (comm_rank(comm) == 0)
      write_file_atomically(files[0],
                            design::selig_text(settings.name + " (camber optimize, final design)",
                                               problem.shape().wall(), result.final_wall));
  });
  // Written by every rank, its part.
  mesh::write_su2(problem.mesh_at(result.final_shape), files[1]);
  return files;
}

}  // namespace camber::solvers::aero
