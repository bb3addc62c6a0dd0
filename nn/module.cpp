#include <camber/nn/module.hpp>

#include <cstdint>
#include <sstream>

#include <Kokkos_Core.hpp>

#include <camber/core/error.hpp>

namespace camber::nn {

void copy_into(Tensor& dst, const Tensor& src) {
  CAMBER_REQUIRE(src.shape() == dst.shape() && src.dtype() == dst.dtype(),
                 "copy_into: " << dtype_name(src.dtype()) << " " << shape_string(src.shape())
                               << " into " << dtype_name(dst.dtype()) << " "
                               << shape_string(dst.shape()));
  switch (dst.dtype()) {
    case DType::float64: Kokkos::deep_copy(dst.typed_view<double>(), src.typed_view<double>()); break;
    case DType::float32: Kokkos::deep_copy(dst.typed_view<float>(), src.typed_view<float>()); break;
    case DType::int64:
      Kokkos::deep_copy(dst.typed_view<std::int64_t>(), src.typed_view<std::int64_t>());
      break;
  }
  dst.mark_modified();
}

namespace {
void check_name(const std::string& name, const char* what) {
  CAMBER_REQUIRE(!name.empty() && name.find('.') == std::string::npos,
                 "Module: " << what << " name '" << name << "' must be non-empty without '.'");
}
}  // namespace

size_t Module::register_parameter(const std::string& name, const Tensor& value) {
  check_name(name, "parameter");
  for (const auto& p : params_)
    CAMBER_REQUIRE(p.first != name, "Module: parameter '" << name << "' registered twice");
  params_.emplace_back(name, ad::variable(value, true));
  return params_.size() - 1;
}

void Module::slots(std::vector<ad::Var*>& out) const {
  for (auto& p : params_) out.push_back(&p.second);
  for (const auto& c : children_) c.second->slots(out);
}

Module::Swap::Swap(const Module& m, const ad::Vars& replacement) {
  m.slots(slots_);
  CAMBER_REQUIRE(replacement.size() == slots_.size(),
                 "Module::with_parameters: " << replacement.size() << " Vars for "
                                             << slots_.size() << " parameters");
  for (size_t k = 0; k < slots_.size(); ++k)
    CAMBER_REQUIRE(replacement[k].defined() && replacement[k].shape() == slots_[k]->shape(),
                   "Module::with_parameters: Var " << k << " does not have its parameter's shape "
                                                   << shape_string(slots_[k]->shape()));
  saved_.reserve(slots_.size());
  for (size_t k = 0; k < slots_.size(); ++k) {
    saved_.push_back(*slots_[k]);
    *slots_[k] = replacement[k];
  }
}

Module::Swap::~Swap() {
  for (size_t k = 0; k < slots_.size(); ++k) *slots_[k] = saved_[k];
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  check_name(name, "submodule");
  CAMBER_REQUIRE(module != nullptr, "Module: submodule '" << name << "' is null");
  for (const auto& c : children_)
    CAMBER_REQUIRE(c.first != name, "Module: submodule '" << name << "' registered twice");
  children_.emplace_back(name, std::move(module));
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, ad::Var>>& out) const {
  for (const auto& p : params_) out.emplace_back(prefix + p.first, p.second);
  for (const auto& c : children_) c.second->collect(prefix + c.first + ".", out);
}

std::vector<std::pair<std::string, ad::Var>> Module::named_parameters() const {
  std::vector<std::pair<std::string, ad::Var>> out;
  collect("", out);
  return out;
}

ad::Vars Module::parameters() const {
  ad::Vars out;
  for (const auto& p : named_parameters()) out.push_back(p.second);
  return out;
}

std::vector<Tensor> Module::parameter_values() const {
  std::vector<Tensor> out;
  for (const auto& p : named_parameters()) out.push_back(p.second.value());
  return out;
}

void Module::load_parameter_values(const std::vector<Tensor>& values) {
  const auto named = named_parameters();
  CAMBER_REQUIRE(values.size() == named.size(), "Module::load_parameter_values: "
                                                    << values.size() << " tensors for "
                                                    << named.size() << " parameters");
  for (size_t k = 0; k < named.size(); ++k) {
    Tensor dst = named[k].second.value();
    const Tensor& src = values[k];
    CAMBER_REQUIRE(src.shape() == dst.shape() && src.dtype() == dst.dtype(),
                   "Module::load_parameter_values: parameter '"
                       << named[k].first << "' is " << dtype_name(dst.dtype()) << " "
                       << shape_string(dst.shape()) << ", got " << dtype_name(src.dtype()) << " "
                       << shape_string(src.shape()));
    copy_into(dst, src);
  }
}

index_t Module::num_parameters() const {
  index_t n = 0;
  for (const auto& p : named_parameters()) n += p.second.value().size();
  return n;
}

void Module::summarize(const std::string& name, int depth, std::string& out) const {
  index_t own = 0;
  for (const auto& p : params_) own += p.second.value().size();
  std::ostringstream line;
  line << std::string(static_cast<size_t>(2 * depth), ' ') << (name.empty() ? "" : name + ": ")
       << describe();
  if (own > 0) line << "  [" << own << " parameters]";
  out += line.str() + "\n";
  for (const auto& c : children_) c.second->summarize(c.first, depth + 1, out);
}

std::string Module::summary() const {
  std::string out;
  summarize("", 0, out);
  out += "total: " + std::to_string(num_parameters()) + " parameters\n";
  return out;
}

}  // namespace camber::nn
