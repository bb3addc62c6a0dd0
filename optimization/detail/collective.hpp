// The collective steps every optimizer of this module shares: an
// evaluation that every rank runs, with failures and errors agreed on
// (no rank hangs when one throws), and the broadcasts that give every rank
// rank 0's values. Internal: not installed.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <camber/optimization/history.hpp>
#include <camber/optimization/optimizer.hpp>

namespace camber::opt::detail {

void bcast_doubles(std::vector<double>& v, MPI_Comm comm);
void bcast_string(std::string& s, int root, MPI_Comm comm);

/// An entry as a flat array (failed flag, x, then the values; the sizes
/// are the problem's: n variables, mi inequality, me equality), and back.
std::vector<double> pack(const HistoryEntry& e);
HistoryEntry unpack(const std::vector<double>& v, std::size_t n, std::size_t mi, std::size_t me);
/// Rank 0's entry on every rank (the failure text included).
HistoryEntry share(const HistoryEntry& e, std::size_t n, std::size_t mi, std::size_t me,
                   MPI_Comm comm);

/// Bitwise equality of two points.
bool same_point(const std::vector<double>& a, const std::vector<double>& b);

/// Checks sizes (a programming error: throws) and finiteness (a failed
/// evaluation: returns the reason, or "" when fine).
std::string check_evaluation(const Evaluation& ev, std::size_t n, std::size_t mi, std::size_t me);

/// Runs `body` on every rank. It returns "" or why the evaluation failed;
/// the lowest rank with a failure is returned (the communicator's size
/// when none). If body throws on any rank, every rank throws
/// (collective_guard's error, printed once; *peers_gone is set first). A
/// rank with an error or failure waits at most timeout_seconds for the
/// others: if they do not come, they are stuck in the callback's own
/// communication, and the job ends (MPI_Abort) rather than hang.
int agreed(MPI_Comm comm, double timeout_seconds, const std::function<std::string()>& body,
           bool* peers_gone);

/// Every rank evaluates p at x; a failure (EvaluationFailed or a
/// non-finite value) on any rank marks the entry failed on all, with the
/// lowest failing rank's reason; other errors are thrown on all ranks.
/// The values are this rank's.
HistoryEntry evaluate_agreed(const Problem& p, const std::vector<double>& x, MPI_Comm comm,
                             double timeout_seconds, bool* peers_gone);

}  // namespace camber::opt::detail
