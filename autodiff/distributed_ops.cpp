#include <camber/autodiff/distributed_ops.hpp>

#include <camber/parallel/collectives.hpp>

namespace camber::ad {

Var halo_exchange(const Var& field, par::HaloExchange& halo) {
  Tensor value = field.value().clone();
  halo.forward(value);
  par::HaloExchange* h = &halo;
  return record_op(
      "halo_exchange", value, {field},
      [h](const Vars&, const Var&, const Var& g) -> Vars { return {halo_reverse_add(g, *h)}; },
      [h](const Vars&, const Var&, const Vars& t) { return halo_exchange(t[0], *h); },
      Reads::nothing());
}

Var halo_reverse_add(const Var& field, par::HaloExchange& halo) {
  Tensor value = field.value().clone();
  halo.reverse_add(value);
  par::HaloExchange* h = &halo;
  return record_op(
      "halo_reverse_add", value, {field},
      [h](const Vars&, const Var&, const Var& g) -> Vars { return {halo_exchange(g, *h)}; },
      [h](const Vars&, const Var&, const Vars& t) { return halo_reverse_add(t[0], *h); },
      Reads::nothing());
}

Var allreduce_sum(const Var& x, MPI_Comm comm) {
  Tensor value = x.value().clone();
  par::allreduce_sum_in_place(value, comm);
  return record_op(
      "allreduce_sum", value, {x},
      [](const Vars&, const Var&, const Var& g) -> Vars { return {g}; },
      [comm](const Vars&, const Var&, const Vars& t) { return allreduce_sum(t[0], comm); },
      Reads::nothing());
}

Var grad_allreduce(const Var& x, MPI_Comm comm) {
  return record_op(
      "grad_allreduce", x.value().clone(), {x},
      [comm](const Vars&, const Var&, const Var& g) -> Vars { return {allreduce_sum(g, comm)}; },
      [](const Vars&, const Var&, const Vars& t) { return t[0]; }, Reads::nothing());
}

}  // namespace camber::ad
