#include "registry_commands.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/registry/entry_text.hpp>

namespace camber::app {

namespace reg = nn::registry;

namespace {

// NAME@VERSION, with the version required.
reg::Reference versioned(const std::string& text, const char* action) {
  const reg::Reference r = reg::parse_reference(text);
  CAMBER_INPUT_REQUIRE(r.version > 0, "models " << action << ": give NAME@VERSION, got '" << text
                                                << "'");
  return r;
}

}  // namespace

int command_models(const ModelsOptions& o, const Runtime& runtime) {
  std::string out;
  // The registry is a file: rank 0 works, every rank exits alike.
  collective_guard(runtime.comm(), [&] {
    if (runtime.rank() != 0) return;
    reg::Registry r(o.registry.empty() ? reg::Registry::default_root() : o.registry);
    std::ostringstream s;
    if (o.action == "register") {
      const reg::Entry e = r.register_model(o.first, o.name, reg::stage_from_name(o.stage));
      s << "registered " << e.reference() << " (" << reg::stage_name(e.stage) << "), sha256 "
        << e.sha256 << (e.signed_by.empty() ? ", unsigned" : ", signed by key " + e.signed_by)
        << (e.unverified_signature.empty()
                ? ""
                : " (" + e.unverified_signature + " not verified: no trusted keys, CAMBER_TRUSTED_KEYS)")
        << "\n";
    } else if (o.action == "list") {
      const std::vector<reg::Entry> all = r.list(o.first);
      s << reg::list_table(all);
      if (all.empty()) s << "(no models" << (o.first.empty() ? "" : " named " + o.first) << ")\n";
    } else if (o.action == "show") {
      s << reg::describe(r.resolve(reg::parse_reference(o.first)));
    } else if (o.action == "promote") {
      const reg::Reference ref = versioned(o.first, "promote");
      const reg::Entry before = r.resolve(ref);
      const reg::Entry e = r.promote(ref.name, ref.version, reg::stage_from_name(o.second));
      s << "promoted " << e.reference() << ": " << reg::stage_name(before.stage) << " -> "
        << reg::stage_name(e.stage) << "\n";
    } else if (o.action == "diff") {
      s << reg::diff(r.resolve(reg::parse_reference(o.first)), r.resolve(reg::parse_reference(o.second)));
    } else if (o.action == "remove") {
      const reg::Reference ref = versioned(o.first, "remove");
      r.remove(ref.name, ref.version);
      s << "removed " << ref.name << "@" << ref.version << "\n";
    } else {
      CAMBER_INPUT_REQUIRE(false, "models: unknown action '" << o.action << "'");
    }
    out = s.str();
  });
  if (runtime.rank() == 0) std::cout << out << std::flush;
  return 0;
}

}  // namespace camber::app
