#include "proposals.h"

#include "opscope/model/weight_error.h"
#include "opscope/propose/config_edit.h"
#include "opscope/resolve/resolve.h"
#include "opscope/support/file_stamp.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace opscope::lsp {
namespace {

// The editor's bound on one worker (the command line waits longer); it also bounds how long
// closing the server waits for a proposal under way.
constexpr std::chrono::seconds kMeasureTimeout{120};
// Budgets closer than this (bits per weight) are one offer.
constexpr double kSameBudget = 0.05;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

} // namespace

Proposals::Proposals(boost::asio::io_context& io, Logger& log)
    : log_(log), jobs_(io, [this](const std::string& uri, const std::string& what) {
        log_.error("proposing a config for " + uri + " failed: " + what);
        if (auto it = documents_.find(uri); it != documents_.end()) {
          it->second.subject.clear(); // tried again after the next edit or load
          it->second.pending = 0;
        }
      }) {}

// int8's size with room for a float layer or two, int4 in blocks of 32's size (4 + 16/32), and
// one between: a mix reaches each with less error than the uniform config of that size. Below
// ~4.1 nothing fits (int4 per channel is the smallest choice), so no lower budget is offered.
const std::vector<double>& Proposals::budgets() {
  static const std::vector<double> kBudgets = {8, 6, 4.5};
  return kBudgets;
}

void Proposals::update(const std::string& uri, std::uint64_t revision, Subject subject) {
  // The same revision on the same model, as it is on disk: proposed already, or under way.
  const support::FileStamp stamp = support::stamp_of(subject.model);
  const std::string subject_key =
      std::to_string(revision) + " " + subject.model + " " + std::to_string(stamp.mtime_ns) + " " +
      std::to_string(stamp.size) + " " +
      std::to_string(reinterpret_cast<std::uintptr_t>(subject.index.get()));
  Document& d = documents_[uri];
  if (d.subject == subject_key)
    return;
  d.subject = subject_key;
  d.pending = revision;
  jobs_.submit(uri, [this, uri, revision, subject = std::move(subject)] {
    std::string none; // why nothing is offered
    auto offers = propose_for(subject, none);
    return BackgroundJobs::Delivery(
        [this, uri, revision, none, offers = std::move(offers)]() mutable {
          if (!none.empty())
            log_.info("no config proposed for " + uri + ": " + none); // the io thread logs
          auto it = documents_.find(uri);
          if (it == documents_.end())
            return; // closed meanwhile
          if (it->second.pending == revision)
            it->second.pending = 0;
          it->second.revision = revision;
          it->second.offers = std::move(offers);
        });
  });
}

const std::vector<Proposals::Offer>& Proposals::offers(const std::string& uri,
                                                       std::uint64_t revision) const {
  static const std::vector<Offer> kNone;
  auto it = documents_.find(uri);
  if (it == documents_.end() || it->second.revision != revision)
    return kNone;
  return it->second.offers;
}

void Proposals::want(const std::string& uri) {
  documents_[uri].wanted = true;
}

bool Proposals::wanted(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it != documents_.end() && it->second.wanted;
}

bool Proposals::pending(const std::string& uri, std::uint64_t revision) const {
  auto it = documents_.find(uri);
  return it != documents_.end() && it->second.pending == revision;
}

void Proposals::forget(const std::string& uri) {
  documents_.erase(uri);
  jobs_.cancel(uri);
}

propose::SquaredErrors Proposals::measure(const Subject& subject,
                                          const std::vector<resolve::WeightQuantization>& weights) {
  const support::FileStamp stamp = support::stamp_of(subject.model);
  const std::string key = subject.model + "\n" + std::to_string(stamp.mtime_ns) + " " +
                          std::to_string(stamp.size) + " " + std::to_string(stamp.inode) + "\n" +
                          model::weight_error_request(*subject.index, weights);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = kept_.find(key); it != kept_.end())
      return *it->second;
  }
  auto measured = std::make_shared<const propose::SquaredErrors>(
      propose::measure_on(subject.model, *subject.index, weights, kMeasureTimeout));
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.emplace(key, measured).second) {
    kept_order_.push_back(key);
    if (kept_order_.size() > kKept) {
      kept_.erase(kept_order_.front());
      kept_order_.pop_front();
    }
  }
  return *measured;
}

std::vector<Proposals::Offer> Proposals::propose_for(const Subject& subject, std::string& none) {
  std::vector<Offer> offers;
  const config::ConfigDocument doc = config::read_config(subject.text, subject.format);
  if (!doc.problems.empty() || !propose::can_append(doc) || !resolve::resolves(doc, *subject.index))
    return offers; // nothing to offer until the config reads (the diagnostics say why)
  propose::Candidates candidates;
  try {
    candidates =
        propose::measure_candidates(doc, *subject.index, subject.path,
                                    [&](const std::vector<resolve::WeightQuantization>& weights) {
                                      return measure(subject, weights);
                                    });
  } catch (const propose::ProposeError& e) {
    none = e.what();
    return offers;
  }
  const auto weights = static_cast<double>(candidates.total_weights);
  std::vector<std::pair<std::string, std::int64_t>> asked;
  if (candidates.bits_now < candidates.bits_before)
    asked.emplace_back("this config's size", candidates.bits_now);
  for (double b : budgets())
    asked.emplace_back(number(b) + " bits per weight",
                       static_cast<std::int64_t>(std::floor(b * weights)));
  for (const auto& [budget, bits] : asked) {
    bool repeated = false;
    for (const Offer& o : offers)
      repeated = repeated ||
                 std::abs(static_cast<double>(o.proposal.budget - bits)) < kSameBudget * weights;
    if (repeated)
      continue;
    try {
      offers.push_back(
          {budget, propose::propose(doc, *subject.index, candidates, bits, subject.path, budget)});
    } catch (const propose::ProposeError&) {
      // Outside what this config reaches (above full precision, below the smallest): not offered.
    }
  }
  return offers;
}

} // namespace opscope::lsp
