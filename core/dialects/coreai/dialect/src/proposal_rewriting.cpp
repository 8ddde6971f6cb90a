#include "proposal_rewriting.h"

#include "opscope/propose/config_edit.h"
#include "opscope/propose/propose.h"
#include "opscope/resolve/resolve.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace opscope::dialects::coreai {
namespace {

// Budgets closer than this (bits per weight) are one offer.
constexpr double kSameBudget = 0.05;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string sqnr(const propose::Proposal& p) {
  if (p.error == 0)
    return "lossless";
  char text[48];
  std::snprintf(text, sizeof text, "SQNR %.2f dB", 10 * std::log10(p.norm / p.error));
  return text;
}

std::string two_places(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// What the proposal reaches, its mix and the best uniform choice: the preview's description.
std::string description(const propose::Proposal& p) {
  std::string mix;
  for (const auto& [label, count] : p.mix)
    mix += (mix.empty() ? "" : ", ") + std::to_string(count) + " " + label;
  std::string out = propose::bits_per_weight_text(p.bits, p.total_weights) + " bits per weight, " +
                    propose::megabytes_text(p.bits) + " (budget " +
                    propose::bits_per_weight_text(p.budget, p.total_weights) + "); weight error " +
                    propose::error_text(p.error, p.norm) + "; " + mix;
  if (p.best_uniform)
    out += "; best uniform choice that fits: " + p.best_uniform->label + ", weight error " +
           propose::error_text(p.best_uniform->error, p.norm);
  return out;
}

// The action for the proposal for `budget` (what was asked: "4.5 bits per weight") on `text`.
Rewrite rewrite_of(const std::string& budget, const propose::Proposal& p, const std::string& text) {
  propose::LineChange change = propose::changed_lines(text, p.text);
  return {"opscope: propose a config for " + budget + " (" +
              two_places(static_cast<double>(p.bits) / static_cast<double>(p.total_weights)) +
              " bits per weight, " + propose::megabytes_text(p.bits) + ", weight " + sqnr(p) + ")",
          "opscope propose: " + budget, description(p), change.replaced, std::move(change.text)};
}

class ProposalRewriting final : public Rewriting {
public:
  explicit ProposalRewriting(ProposalSubject subject) : subject_(std::move(subject)) {}

  std::vector<Rewrite> run(const WeightsWorker& worker, std::chrono::milliseconds timeout,
                           std::string& none) override {
    std::vector<Rewrite> rewrites;
    const config::ConfigDocument doc = config::read_config(subject_.text, subject_.format);
    const index::Index& index = *subject_.index;
    if (!doc.problems.empty() || !propose::can_append(doc) || !resolve::resolves(doc, index))
      return rewrites; // nothing to offer until the config reads (the diagnostics say why)
    propose::Candidates candidates;
    try {
      candidates = propose::measure_candidates(
          doc, index, subject_.path, [&](const std::vector<resolve::WeightQuantization>& weights) {
            return propose::measure_on(subject_.weights, index, weights, worker, timeout);
          });
    } catch (const propose::ProposeError& e) {
      none = e.what();
      return rewrites;
    }
    const auto weights = static_cast<double>(candidates.total_weights);
    std::vector<std::pair<std::string, std::int64_t>> asked;
    if (candidates.bits_now < candidates.bits_before)
      asked.emplace_back("this config's size", candidates.bits_now);
    for (double b : proposal_budgets())
      asked.emplace_back(number(b) + " bits per weight",
                         static_cast<std::int64_t>(std::floor(b * weights)));
    std::vector<std::int64_t> offered; // the bits of each proposal offered
    for (const auto& [budget, bits] : asked) {
      bool repeated = false;
      for (std::int64_t o : offered)
        repeated = repeated || std::abs(static_cast<double>(o - bits)) < kSameBudget * weights;
      if (repeated)
        continue;
      try {
        propose::Proposal p = propose::propose(doc, index, candidates, bits, subject_.path, budget);
        offered.push_back(p.budget);
        rewrites.push_back(rewrite_of(budget, p, subject_.text));
      } catch (const propose::ProposeError&) {
        // Outside what this config reaches (above full precision, below the smallest): not
        // offered.
      }
    }
    return rewrites;
  }

private:
  ProposalSubject subject_;
};

} // namespace

std::unique_ptr<Rewriting> proposal_rewriting(ProposalSubject subject) {
  return std::make_unique<ProposalRewriting>(std::move(subject));
}

// int8's size with room for a float layer or two, int4 in blocks of 32's size (4 + 16/32), and
// one between: a mix reaches each with less error than the uniform config of that size. Below
// ~4.1 nothing fits (int4 per channel is the smallest choice), so no lower budget is offered.
const std::vector<double>& proposal_budgets() {
  static const std::vector<double> kBudgets = {8, 6, 4.5};
  return kBudgets;
}

RewritesOffered proposals_offered(int root_line) {
  return {root_line, "opscope: propose a config for a size budget",
          "measuring each weight under each choice (int8, int4 per channel or in blocks); "
          "offered when done"};
}

} // namespace opscope::dialects::coreai
