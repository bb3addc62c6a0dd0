#include <camber/nn/serve/served_models.hpp>

#include <filesystem>
#include <system_error>
#include <utility>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/registry/registry.hpp>

namespace camber::nn::serve {

namespace fs = std::filesystem;

ServedModels load_served_models(const std::vector<std::string>& specs, const std::string& registry_root) {
  ServedModels out;
  for (const std::string& text : specs) {
    std::string name, spec = text;
    std::error_code ec;
    const std::size_t eq = text.find('=');
    if (eq != std::string::npos && !fs::is_regular_file(text, ec)) {
      name = text.substr(0, eq);
      spec = text.substr(eq + 1);
    }
    const registry::ResolvedModel r = registry::resolve_model(spec, registry_root);
    if (!fs::is_regular_file(spec, ec))
      out.followed.push_back({out.models.size(), text, [spec, registry_root] {
                                const auto now = registry::resolve_model(spec, registry_root);
                                return Resolved{now.path, std::to_string(now.version)};
                              }});
    if (name.empty()) name = r.name.empty() ? fs::path(spec).stem().string() : r.name;
    const std::string version = r.version > 0 ? std::to_string(r.version) : "1";
    io::Model model = io::load_model(r.path);
    out.description += (out.description.empty() ? "" : "; ") + name + " version " + version + " (" + text +
                       ", " + model.surrogate.network().describe() + ")";
    out.models.push_back({name, version, std::move(model)});
  }
  return out;
}

}  // namespace camber::nn::serve
