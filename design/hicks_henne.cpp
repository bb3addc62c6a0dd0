#include <camber/design/hicks_henne.hpp>

#include <cmath>
#include <utility>

#include <camber/core/error.hpp>

namespace camber::design {

double hicks_henne_bump(double x, double peak) {
  CAMBER_INPUT_REQUIRE(peak > 0.0 && peak < 1.0,
                       "hicks_henne_bump: the peak must lie in (0, 1), got " << peak);
  if (!(x > 0.0 && x < 1.0)) return 0.0;
  const double pi = 3.14159265358979323846;
  const double s = std::sin(pi * std::pow(x, std::log(0.5) / std::log(peak)));
  return s * s * s;
}

std::vector<HicksHenneBump> evenly_spaced_bumps(int n_per_surface) {
  CAMBER_INPUT_REQUIRE(n_per_surface >= 1,
                       "evenly_spaced_bumps: needs at least 1 bump per surface, got "
                           << n_per_surface);
  std::vector<HicksHenneBump> bumps;
  for (Surface s : {Surface::upper, Surface::lower})
    for (int k = 1; k <= n_per_surface; ++k)
      bumps.push_back({static_cast<double>(k) / (n_per_surface + 1), s});
  return bumps;
}

HicksHenne::HicksHenne(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
                       std::vector<HicksHenneBump> bumps)
    : HicksHenne(AirfoilWall(mesh, wall_markers), std::move(bumps)) {}

HicksHenne::HicksHenne(AirfoilWall wall, std::vector<HicksHenneBump> bumps)
    : ShapeParametrization(std::move(wall)), bumps_(std::move(bumps)) {
  CAMBER_INPUT_REQUIRE(!bumps_.empty(), "HicksHenne: no bumps given");
  for (std::size_t k = 0; k < bumps_.size(); ++k)
    CAMBER_INPUT_REQUIRE(bumps_[k].peak > 0.0 && bumps_[k].peak < 1.0,
                         "HicksHenne: bump " << k << " has its peak at x = " << bumps_[k].peak
                                             << "; peaks must lie in (0, 1) (chord fractions)");
  const AirfoilWall& w = this->wall();
  const index_t n_wall = w.n_nodes(), n_dv = static_cast<index_t>(bumps_.size());
  std::vector<double> b(static_cast<size_t>(n_wall * 2 * n_dv), 0.0);
  for (index_t i = 0; i < n_wall; ++i)
    for (index_t k = 0; k < n_dv; ++k) {
      const HicksHenneBump& bump = bumps_[static_cast<size_t>(k)];
      if (w.surface()[static_cast<size_t>(i)] != bump.surface) continue;
      const double h = hicks_henne_bump(w.chord_coordinate()[static_cast<size_t>(i)], bump.peak);
      for (int d = 0; d < 2; ++d)
        b[static_cast<size_t>((i * 2 + d) * n_dv + k)] = h * w.normal()[static_cast<size_t>(d)];
    }
  set_basis(Tensor::from_host({n_wall, 2, n_dv}, b), "hicks_henne");
}

}  // namespace camber::design
