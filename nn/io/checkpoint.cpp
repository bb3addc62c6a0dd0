#include <camber/nn/io/checkpoint.hpp>

#include <sstream>
#include <vector>

#include "detail/lines.hpp"

#include <camber/core/error.hpp>
#include <camber/trust/signature.hpp>
#include <camber/io/hdf5_file.hpp>

namespace camber::nn::io {

namespace {

constexpr const char* checkpoint_format = "camber-nn-checkpoint";
constexpr std::int64_t checkpoint_version = 1;

DType dtype_from_name(const std::string& path, const std::string& what, const std::string& name) {
  if (name == "float64") return DType::float64;
  if (name == "float32") return DType::float32;
  CAMBER_INPUT_REQUIRE(false, path << ": " << what << " has dtype '" << name << "'");
  return DType::float64;
}

void write_tensor(camber::io::H5File& f, const std::string& name, const Tensor& t) {
  // Rank-0 tensors are written as {1} (the shape attribute restores them).
  const Tensor v = t.to(DType::float64);
  f.write_replicated(name, t.rank() == 0 ? v.reshape({1}) : v);
  f.set_attribute(name, "dtype", dtype_name(t.dtype()));
}

Tensor read_tensor(const camber::io::H5File& f, const std::string& path, const std::string& name,
                   const Tensor& like) {
  CAMBER_INPUT_REQUIRE(f.has_dataset(name), path << ": missing dataset '" << name << "'");
  const DType dt = dtype_from_name(path, name, f.attribute<std::string>(name, "dtype"));
  CAMBER_INPUT_REQUIRE(dt == like.dtype(), path << ": '" << name << "' is " << dtype_name(dt)
                                                << ", the model's is " << dtype_name(like.dtype()));
  Tensor t = f.read_all(name);
  if (like.rank() == 0 && t.size() == 1) t = t.reshape({});
  CAMBER_INPUT_REQUIRE(t.shape() == like.shape(), path << ": '" << name << "' has shape "
                                                       << shape_string(t.shape())
                                                       << ", the model's is "
                                                       << shape_string(like.shape()));
  return t.to(dt);
}

}  // namespace

void save_checkpoint(const std::string& path, const Module& model, const Optimizer& optimizer,
                     const Trainer& trainer, MPI_Comm comm) {
  camber::io::H5File f(path, camber::io::Mode::create, comm);
  f.set_attribute("", "format", checkpoint_format);
  f.set_attribute("", "version", checkpoint_version);
  f.set_attribute("", "epoch", static_cast<std::int64_t>(trainer.epoch()));
  f.set_attribute("", "rng_state", trainer.rng_state());
  std::vector<std::string> names;
  for (const auto& [name, var] : model.named_parameters()) {
    names.push_back(name);
    write_tensor(f, "parameters/" + name, var.value());
  }
  f.set_attribute("", "parameters", detail::join_lines(names));
  std::vector<std::string> entries;
  for (const auto& [name, t] : optimizer.state()) {
    entries.push_back(name);
    write_tensor(f, "optimizer/" + name, t);
  }
  f.set_attribute("", "optimizer_entries", detail::join_lines(entries));
  const auto& h = trainer.history();
  std::vector<double> rows;
  for (const EpochRecord& r : h)
    for (double v : {static_cast<double>(r.epoch), r.train_loss, r.val_loss, r.lr, r.samples_per_s,
                     r.seconds})
      rows.push_back(v);
  if (!h.empty())
    f.write_replicated("history", Tensor::from_host({static_cast<index_t>(h.size()), 6}, rows));
  f.close();
}

namespace {

void check_format(const camber::io::H5File& f, const std::string& path) {
  CAMBER_INPUT_REQUIRE(f.has_attribute("", "format") &&
                           f.attribute<std::string>("", "format") == checkpoint_format,
                       path << ": not a Camber training checkpoint");
  const std::int64_t version = f.attribute<std::int64_t>("", "version");
  CAMBER_INPUT_REQUIRE(version == checkpoint_version, path << ": checkpoint format version "
                                                           << version << ", this build reads "
                                                           << checkpoint_version);
}

// The parameters' values, checked against the model's names, shapes, dtypes.
std::vector<Tensor> read_parameters(const camber::io::H5File& f, const std::string& path,
                                    const Module& model) {
  const auto named = model.named_parameters();
  const std::vector<std::string> names = detail::split_lines(f.attribute<std::string>("", "parameters"));
  CAMBER_INPUT_REQUIRE(names.size() == named.size(),
                       path << ": " << names.size() << " parameters, the model has "
                            << named.size());
  std::vector<Tensor> values;
  for (size_t k = 0; k < named.size(); ++k) {
    CAMBER_INPUT_REQUIRE(names[k] == named[k].first, path << ": parameter " << k << " is '"
                                                          << names[k] << "', the model's is '"
                                                          << named[k].first << "'");
    values.push_back(read_tensor(f, path, "parameters/" + names[k], named[k].second.value()));
  }
  return values;
}

}  // namespace

void load_parameters(const std::string& path, Module& model, MPI_Comm comm) {
  // Every rank checks the signature (when keys are trusted) before HDF5
  // reads a byte; the verdict is the same on each.
  trust::require_signed(path, "training checkpoint");
  camber::io::H5File f(path, camber::io::Mode::read, comm);
  check_format(f, path);
  const std::vector<Tensor> values = read_parameters(f, path, model);
  f.close();
  model.load_parameter_values(values);
}

void load_checkpoint(const std::string& path, Module& model, Optimizer& optimizer,
                     Trainer& trainer, MPI_Comm comm) {
  trust::require_signed(path, "training checkpoint");
  camber::io::H5File f(path, camber::io::Mode::read, comm);
  check_format(f, path);
  const std::vector<Tensor> values = read_parameters(f, path, model);
  auto state = optimizer.state();
  const std::vector<std::string> entries = detail::split_lines(f.attribute<std::string>("", "optimizer_entries"));
  CAMBER_INPUT_REQUIRE(entries.size() == state.size(),
                       path << ": " << entries.size() << " optimizer entries, this optimizer has "
                            << state.size() << " (another optimizer?)");
  for (size_t k = 0; k < state.size(); ++k) {
    CAMBER_INPUT_REQUIRE(entries[k] == state[k].first, path << ": optimizer entry '" << entries[k]
                                                            << "' where '" << state[k].first
                                                            << "' was expected");
    state[k].second = read_tensor(f, path, "optimizer/" + entries[k], state[k].second);
  }
  const std::int64_t epoch = f.attribute<std::int64_t>("", "epoch");
  std::vector<EpochRecord> history;
  if (epoch > 0) {
    const Tensor h = f.read_all("history");
    CAMBER_INPUT_REQUIRE(h.rank() == 2 && h.dim(0) == epoch && h.dim(1) == 6,
                         path << ": history of shape " << shape_string(h.shape()) << " for "
                              << epoch << " epochs");
    const std::vector<double> v = h.to_vector();
    for (std::int64_t e = 0; e < epoch; ++e) {
      const double* r = v.data() + 6 * e;
      EpochRecord rec;
      rec.epoch = static_cast<int>(r[0]);
      rec.train_loss = r[1];
      rec.val_loss = r[2];
      rec.lr = r[3];
      rec.samples_per_s = r[4];
      rec.seconds = r[5];
      history.push_back(rec);
    }
  }
  const std::string rng = f.attribute<std::string>("", "rng_state");
  f.close();
  // Everything read and checked: now change the model, optimizer, trainer.
  model.load_parameter_values(values);
  optimizer.load_state(state);
  trainer.resume(std::move(history), rng);
}

}  // namespace camber::nn::io
