#include <camber/design/linear_map.hpp>

#include <utility>

#include <camber/autodiff/functional.hpp>
#include <camber/core/error.hpp>

namespace camber::design {

namespace {

void require_shape(const Shape& got, const Shape& want, const std::string& map,
                   const char* what) {
  CAMBER_REQUIRE(got == want, map << ": " << what << " has shape " << shape_string(got)
                                  << ", expected " << shape_string(want));
}

bool is_empty_tensor(const Tensor& t) { return t.rank() == 0 && t.size() == 0; }

}  // namespace

ad::Var apply_linear(const std::shared_ptr<const LinearMap>& map, const ad::Var& x,
                     const Tensor& offset) {
  CAMBER_REQUIRE(map != nullptr, "apply_linear: null map");
  require_shape(x.shape(), map->input_shape(), map->name(), "the input");
  const bool has_offset = !is_empty_tensor(offset);
  if (has_offset) require_shape(offset.shape(), map->output_shape(), map->name(), "the offset");
  std::shared_ptr<const LinearMap> m = map;
  return ad::custom_op(
      m->name(), {x},
      [m, offset, has_offset](const std::vector<Tensor>& v) {
        Tensor y = m->apply(v[0]);
        if (has_offset) y += offset;
        return y;
      },
      [m](const ad::Vars& in, const ad::Var&, const ad::Var& g) -> ad::Vars {
        return {in[0].requires_grad() ? apply_linear_transpose(m, g) : ad::Var()};
      },
      [m](const ad::Vars&, const ad::Var&, const ad::Vars& t) { return apply_linear(m, t[0]); });
}

ad::Var apply_linear_transpose(const std::shared_ptr<const LinearMap>& map, const ad::Var& y) {
  CAMBER_REQUIRE(map != nullptr, "apply_linear_transpose: null map");
  require_shape(y.shape(), map->output_shape(), map->name() + "_transpose", "the input");
  std::shared_ptr<const LinearMap> m = map;
  return ad::custom_op(
      m->name() + "_transpose", {y},
      [m](const std::vector<Tensor>& v) { return m->apply_transpose(v[0]); },
      [m](const ad::Vars& in, const ad::Var&, const ad::Var& g) -> ad::Vars {
        return {in[0].requires_grad() ? apply_linear(m, g) : ad::Var()};
      },
      [m](const ad::Vars&, const ad::Var&, const ad::Vars& t) {
        return apply_linear_transpose(m, t[0]);
      });
}

DenseMap::DenseMap(Tensor matrix, std::string name) : matrix_(std::move(matrix)), name_(std::move(name)) {
  CAMBER_REQUIRE(matrix_.rank() >= 2, "DenseMap '" << name_ << "': the matrix needs rank >= 2, got "
                                                   << shape_string(matrix_.shape()));
  cols_ = matrix_.shape().back();
  rows_ = cols_ > 0 ? matrix_.size() / cols_ : 0;
}

Shape DenseMap::input_shape() const { return {cols_}; }

Shape DenseMap::output_shape() const {
  Shape s = matrix_.shape();
  s.pop_back();
  return s;
}

Tensor DenseMap::apply(const Tensor& x) const {
  require_shape(x.shape(), input_shape(), name_, "the input");
  Tensor y = Tensor::uninitialized(output_shape());
  const auto M = matrix_.view();
  const auto xv = x.view();
  const auto yv = y.view();
  const index_t nc = cols_;
  Kokkos::parallel_for(
      "camber::design::DenseMap::apply", Kokkos::RangePolicy<>(0, rows_),
      KOKKOS_LAMBDA(const index_t r) {
        double s = 0.0;
        for (index_t c = 0; c < nc; ++c) s += M(r * nc + c) * xv(c);
        yv(r) = s;
      });
  return y;
}

Tensor DenseMap::apply_transpose(const Tensor& y) const {
  require_shape(y.shape(), output_shape(), name_ + "_transpose", "the input");
  Tensor x = Tensor::uninitialized(input_shape());
  const auto M = matrix_.view();
  const auto xv = x.view();
  const auto yv = y.view();
  const index_t nc = cols_, nr = rows_;
  Kokkos::parallel_for(
      "camber::design::DenseMap::apply_transpose", Kokkos::RangePolicy<>(0, cols_),
      KOKKOS_LAMBDA(const index_t c) {
        double s = 0.0;
        for (index_t r = 0; r < nr; ++r) s += M(r * nc + c) * yv(r);
        xv(c) = s;
      });
  return x;
}

}  // namespace camber::design
