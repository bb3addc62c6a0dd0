/// @file
/// camber::par::HaloExchange — fill ghost cells from their owners, and the
/// adjoint: add ghost contributions back into their owners.
///
/// A cell field is a Tensor whose first axis runs over the local cells of a
/// CellDistribution (owned rows first, then ghost rows); further axes are
/// components, e.g. {n_local, 4} for the Euler state or {n_local} for a
/// scalar. With x = (x_owned, x_ghost) and G the 0/1 matrix that picks, for
/// every ghost, the row of its owner (on another rank):
///
/// @code
///   forward:      (x_owned, x_ghost) -> (x_owned, G x_owned)
///   reverse_add:  (y_owned, y_ghost) -> (y_owned + G^T y_ghost, 0)
/// @endcode
///
/// reverse_add is the transpose (the VJP) of forward: a residual kernel that
/// reads ghost values in the forward pass scatters adjoint contributions into
/// ghost rows in the reverse pass, and reverse_add sends them home. The
/// dot-product identity <forward(u), v> == <u, reverse_add(v)> (summed over
/// ranks) holds to round-off and is tested.
///
/// @code
///   camber::par::HaloExchange halo(dist);      // dist: CellDistribution
///   camber::Tensor u({dist.n_local(), 4});
///   ... write owned rows of u ...
///   halo.forward(u);                           // ghost rows now valid
///   ... reverse sweep accumulates into rows of du, ghosts included ...
///   halo.reverse_add(du);                      // owners hold the sums
/// @endcode
///
/// Both calls are collective over the distribution's communicator (every
/// rank calls them, in the same order, with the same number of components).
/// Each call first swaps a four-number header (operation, components per
/// cell, cells each way) with every neighbour rank, one small message each
/// way. Where the two sides of an exchange disagree (one rank called forward
/// and its neighbour reverse_add, or their fields have different numbers of
/// components), neither sends the data: both raise a camber::Error naming
/// the two ranks and the message sizes each side sends and expects, after
/// finishing the exchanges with their other neighbours (so that no rank is
/// left waiting), and the field is left unchanged on a rank that raises. A
/// rank whose field has the wrong number of rows raises its own error; its
/// neighbours raise one naming it. No buffer is ever sized by the other side.
/// Packing and unpacking run as Kokkos kernels on the tensor's view; MPI
/// moves host buffers (non-blocking send/receive per neighbour, then wait),
/// so device memory is copied through a host mirror. The reverse
/// accumulation is deterministic: each owned cell adds its contributions in
/// ascending neighbour-rank order, without atomics.
///
/// Ownership: holds a copy of the pattern and the distribution's
/// communicator, so it may outlive the CellDistribution. Keeps its message
/// buffers between calls; one object must not be used by two threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/core/tensor.hpp>

namespace camber::par {

class HaloExchange {
 public:
  HaloExchange() = default;
  explicit HaloExchange(const CellDistribution& dist);

  /// Overwrites the ghost rows of `field` with the owners' values. Both
  /// change `field` in place (its version advances: a graph that saved it
  /// refuses to differentiate through the old values).
  void forward(Tensor& field);
  /// Adds the ghost rows of `field` into their owners' rows (on the owning
  /// ranks), then sets the ghost rows to zero.
  void reverse_add(Tensor& field);

  index_t n_owned() const noexcept { return n_owned_; }
  index_t n_local() const noexcept { return n_local_; }

 private:
  using IndexView = Kokkos::View<index_t*>;
  using Buffer = Kokkos::View<double*>;

  /// Values per cell of `field`, or -1 if its first axis is not n_local.
  index_t components(const Tensor& field) const;
  /// Swaps headers with every neighbour and marks in skip_ the pairs whose
  /// two sides disagree (error_ says how); raises at once if this rank's
  /// field has the wrong rows. Returns the components per cell.
  index_t agree(const Tensor& field, bool reverse);
  /// Raises the disagreement agree() found, if any (after exchange()).
  void raise_if_skipped(const char* who) const;
  void reserve(index_t n_components);
  /// Sends send_host_ segments and receives recv_host_ segments, or the
  /// other way round for the reverse direction.
  void exchange(index_t n_components, bool reverse);

  Communicator comm_;
  index_t n_owned_ = 0;
  index_t n_local_ = 0;
  std::vector<int> ranks_;                ///< neighbour ranks
  std::vector<index_t> send_offset_;      ///< per neighbour, in cells, into the send list
  std::vector<index_t> ghost_offset_;     ///< per neighbour, in cells, from the first ghost
  std::vector<index_t> ghost_count_;      ///< per neighbour, ghosts it owns
  IndexView send_cells_;                  ///< all send lists, concatenated
  /// The reverse accumulation as CSR: boundary cell acc_cell_(b) receives the
  /// send-list slots acc_slot_(acc_ptr_(b)) .. acc_slot_(acc_ptr_(b+1)-1).
  IndexView acc_cell_;
  IndexView acc_ptr_;
  IndexView acc_slot_;
  index_t n_send_ = 0;    ///< total cells in the send lists
  index_t n_ghosts_ = 0;  ///< total ghost cells
  index_t capacity_ = 0;  ///< components the buffers hold
  Buffer send_buf_;       ///< n_send_ * components: owners' side
  Buffer recv_buf_;       ///< n_ghosts_ * components: ghosts' side
  Buffer::HostMirror send_host_;
  Buffer::HostMirror recv_host_;
  std::vector<std::int64_t> header_out_;  ///< per neighbour: op, components, cells
  std::vector<std::int64_t> header_in_;
  std::vector<char> skip_;                ///< per neighbour: no data this call
  std::string error_;                     ///< the disagreements of this call
};

}  // namespace camber::par
