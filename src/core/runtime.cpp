#include <camber/core/runtime.hpp>

#include <Kokkos_Core.hpp>
#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include <camber/core/allocator.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>

namespace camber {

namespace {

// Opt-in only (CAMBER_MALLOC_CACHE=1): a library must not change its host
// application's malloc policy unless asked. Tensor storage needs none of it
// (the engine allocator caches it, allocator.hpp); arrays allocated with
// malloc outside Tensor (PETSc vectors, solver work arrays) of up to 32 MiB
// (glibc's largest mmap threshold) are then kept in the heap when freed,
// instead of being unmapped and page-faulted in again, and the heap is
// trimmed only above 512 MiB of free space. Throws for a value other than 0
// or 1.
void tune_malloc_if_asked() {
  const char* s = std::getenv("CAMBER_MALLOC_CACHE");
  if (s == nullptr) return;
  const std::string setting(s);
  CAMBER_INPUT_REQUIRE(setting == "0" || setting == "1",
                       "CAMBER_MALLOC_CACHE='" << setting
                                               << "': use 1 (keep freed blocks up to 32 MiB in "
                                                  "malloc's heap) or 0 (glibc's defaults, the "
                                                  "default)");
  if (setting == "0") return;
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
}

// Kokkos sees only the arguments that start with --kokkos- (its own
// --kokkos-help among them), which are then taken out of argv: the
// program's --help, --threads or --device stay the program's, and Kokkos
// prints no banner of its own for them.
void initialize_kokkos(int& argc, char**& argv) {
  std::vector<char*> kokkos_args{argc > 0 ? argv[0] : nullptr};
  int kept = argc > 0 ? 1 : 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0)
      kokkos_args.push_back(argv[i]);
    else
      argv[kept++] = argv[i];
  }
  if (argc > 0) {
    for (int i = kept; i < argc; ++i) argv[i] = nullptr;
    argc = kept;
  }
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  char** kokkos_argv = kokkos_args.data();
  if (kokkos_args.front() == nullptr) {
    Kokkos::initialize();
  } else {
    Kokkos::initialize(kokkos_argc, kokkos_argv);
  }
}

}  // namespace

Runtime::Runtime(int& argc, char**& argv) {
  // Settings from the environment, read before anything allocates; a bad
  // value is reported once MPI can say which rank prints.
  int setting_exit_code = 0;
  std::string setting_error;
  try {
    tune_malloc_if_asked();
    memory::engine_allocator();
  } catch (const Error& e) {
    setting_exit_code = e.exit_code();
    setting_error = e.message();
  }
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  if (!mpi_up) {
    int provided = 0;
    // FUNNELED: only the main thread calls MPI; Kokkos threads never do.
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      std::fprintf(stderr, "camber: MPI_Init_thread failed\n");
      std::exit(1);
    }
    owns_mpi_ = true;
  }
  // Errors on the world communicator come back as return codes, which
  // CAMBER_CHECK_MPI turns into camber::Error with MPI's message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (setting_exit_code != 0) {
    // Every rank reads the same environment: all leave, rank 0 prints.
    if (rank_ == 0) std::fprintf(stderr, "camber: error: %s\n", setting_error.c_str());
    if (owns_mpi_) MPI_Finalize();
    std::exit(setting_exit_code);
  }
  if (!Kokkos::is_initialized()) {
    initialize_kokkos(argc, argv);
    owns_kokkos_ = true;
  }
  logging::set_rank(rank_);
}

Runtime::~Runtime() {
  if (owns_kokkos_) {
    // Cached Tensor blocks go back before the memory space closes (the
    // allocator's finalize hook would do it too, inside finalize).
    memory::engine_allocator().empty_cache();
    Kokkos::finalize();
  }
  if (owns_mpi_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

std::string Runtime::describe() const {
  std::ostringstream os;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string mpi(version, static_cast<size_t>(length));
  if (auto cut = mpi.find_first_of(",\n"); cut != std::string::npos) mpi.resize(cut);
  os << "Kokkos " << KOKKOS_VERSION / 10000 << "." << (KOKKOS_VERSION / 100) % 100
     << "." << KOKKOS_VERSION % 100 << " ("
     << Kokkos::DefaultExecutionSpace::name() << "), " << mpi << ", "
     << size_ << (size_ == 1 ? " rank" : " ranks");
  return os.str();
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 1;
  CAMBER_CHECK_MPI(MPI_Comm_size(comm, &s));
  return s;
}

double peak_resident_mib(MPI_Comm comm) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double mine = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
  double largest = 0.0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE, MPI_MAX, comm));
  return largest;
}

namespace {

// Thrown on every rank after a collective failure has been agreed on; the
// message has already been printed by the lowest failing rank.
class AgreedError : public Error {
 public:
  using Error::Error;
};

void print_error(int rank, int size, const std::string& what) {
  std::ostringstream os;
  os << "camber: error";
  if (size > 1) os << " on rank " << rank;
  os << ": " << what << "\n";
  std::cerr << os.str() << std::flush;
}

}  // namespace

void collective_guard(MPI_Comm comm, const std::function<void()>& body) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  int my_kind = 0;  // 0 ok, 1 failure, 2 bad input
  std::string my_message;
  try {
    body();
  } catch (const Error& e) {
    my_kind = e.exit_code();
    my_message = e.message();
  } catch (const std::exception& e) {
    my_kind = 1;
    my_message = e.what();
  }
  // Lowest failing rank, and its error kind, agreed on by all ranks.
  int failing = my_kind != 0 ? rank : size;
  int lowest = size;
  CAMBER_CHECK_MPI(MPI_Allreduce(&failing, &lowest, 1, MPI_INT, MPI_MIN, comm));
  if (lowest == size) return;
  int info[2] = {my_kind, static_cast<int>(my_message.size())};
  CAMBER_CHECK_MPI(MPI_Bcast(info, 2, MPI_INT, lowest, comm));
  std::vector<char> text(static_cast<size_t>(info[1]) + 1, '\0');
  if (rank == lowest) std::copy(my_message.begin(), my_message.end(), text.begin());
  CAMBER_CHECK_MPI(MPI_Bcast(text.data(), info[1], MPI_CHAR, lowest, comm));
  const std::string agreed(text.data(), static_cast<size_t>(info[1]));
  if (rank == lowest) print_error(rank, size, agreed);
  throw AgreedError(info[0] == 2 ? ErrorKind::bad_input : ErrorKind::failure, agreed);
}

int run_guarded(MPI_Comm comm, const std::function<int()>& body) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int code = 0;
  std::string message;
  try {
    return body();
  } catch (const AgreedError& e) {
    return e.exit_code();  // already printed once, every rank returns
  } catch (const Error& e) {
    code = e.exit_code();
    message = e.message();
    if (!e.where().empty() && e.kind() == ErrorKind::failure)
      message += " [" + e.where() + "]";
  } catch (const std::exception& e) {
    code = 1;
    message = e.what();
  }
  print_error(rank, size, message);
  if (size > 1) {
    // The other ranks may be blocked in communication: end the job.
    MPI_Abort(comm, code);
  }
  return code;
}

}  // namespace camber
