// Parallelism plans: parsing "tp4pp2", the canonical name, and the rules a model must meet to
// split under a plan.
#include <array>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/parallel.hpp"

namespace fp4gemm {

ParallelPlan parse_plan(std::string_view text, std::string_view argument) {
  ParallelPlan plan;
  std::array<bool, 3> seen{};
  require(!text.empty(), "{} is empty; expected e.g. tp8, tp4pp2, tp8ep8 or ep8", argument);
  std::size_t i = 0;
  while (i < text.size()) {
    const std::string_view key = text.substr(i, 2);
    const int slot = key == "tp" ? 0 : key == "pp" ? 1 : key == "ep" ? 2 : -1;
    std::size_t end = i + 2;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    const std::string_view part = text.substr(i, end - i);
    require(slot >= 0 && part.size() > 2,
            "{} '{}': expected parts tp<N>, pp<N>, ep<N> (e.g. tp4pp2), got '{}'", argument, text,
            text.substr(i));
    require(!seen[slot], "{} '{}': {} is given twice", argument, text, key);
    seen[slot] = true;
    // At most 6 digits: no plan spans a million GPUs, and the int cannot overflow.
    require(part.size() <= 8 && std::stoi(std::string(part.substr(2))) >= 1,
            "{} '{}': {} = {} must be a count from 1 to 999999", argument, text, key, part.substr(2));
    (slot == 0 ? plan.tp : slot == 1 ? plan.pp : plan.ep) = std::stoi(std::string(part.substr(2)));
    i = end;
  }
  return plan;
}

std::string to_string(const ParallelPlan& plan) {
  std::string name = plan.tp == 1 && plan.ep > 1 ? "" : fmt::format("tp{}", plan.tp);
  if (plan.pp > 1) name += fmt::format("pp{}", plan.pp);
  if (plan.ep > 1) name += fmt::format("ep{}", plan.ep);
  return name;
}

void validate_plan(const ModelConfig& m, const ParallelPlan& p) {
  const std::string name = to_string(p);
  require(p.tp >= 1 && p.pp >= 1 && p.ep >= 1, "plan tp{}pp{}ep{}: every count must be at least 1", p.tp, p.pp, p.ep);
  require(p.tp % p.ep == 0 || p.ep % p.tp == 0,
          "plan {}: one of tp = {} and ep = {} must divide the other (experts are spread over the GPUs "
          "of a tensor-parallel group, or attention replicas over an expert-parallel one)",
          name, p.tp, p.ep);
  require(m.num_heads % p.tp == 0, "plan {}: num_attention_heads = {} is not divisible by tp = {}", name,
          m.num_heads, p.tp);
  if (const auto* gqa = std::get_if<GqaAttention>(&m.attention))
    require(gqa->num_kv_heads % p.tp == 0 || p.tp % gqa->num_kv_heads == 0,
            "plan {}: num_key_value_heads = {} and tp = {}: one must divide the other (K/V heads are "
            "split across tp, or replicated when there are fewer than tp)",
            name, gqa->num_kv_heads, p.tp);
  if (m.intermediate_size > 0)
    require(m.intermediate_size % p.tp == 0, "plan {}: intermediate_size = {} is not divisible by tp = {}", name,
            m.intermediate_size, p.tp);
  if (!m.moe) {
    require(p.ep == 1, "plan {}: ep = {} needs a mixture-of-experts model; {} has no experts", name, p.ep, m.name);
  } else {
    const MoeBlock& moe = *m.moe;
    require(moe.experts % p.ep == 0, "plan {}: the {} routed experts are not divisible by ep = {}", name,
            moe.experts, p.ep);
    require(moe.intermediate % p.expert_tp() == 0,
            "plan {}: the expert intermediate size {} is not divisible by the {} ways each expert is split",
            name, moe.intermediate, p.expert_tp());
    require(moe.intermediate * moe.shared_experts % p.tp == 0,
            "plan {}: the shared-expert intermediate size {} is not divisible by tp = {}", name,
            moe.intermediate * moe.shared_experts, p.tp);
  }
  require(p.pp <= m.num_layers(), "plan {}: pp = {} exceeds the {} decoder layers", name, p.pp, m.num_layers());
}

}  // namespace fp4gemm
