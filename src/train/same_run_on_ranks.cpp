// Comparing the run every rank is about to train with rank 0's.
#include "train/same_run_on_ranks.h"

#include <span>
#include <vector>

#include "autograd/error.h"
#include "config/json_diff.h"
#include "config/json_text.h"
#include "datasets/data_fingerprint.h"

namespace tf::train {

namespace {

// Rank 0's text on every rank, through the one collective there is: a sum to which the other
// ranks add zeros. Each byte travels as a double, exactly.
std::string from_rank_zero(distributed::Communicator& ranks, const std::string& text) {
    const bool sender = ranks.rank() == 0;
    double length = sender ? static_cast<double>(text.size()) : 0.0;
    ranks.all_reduce_sum(std::span<double>(&length, 1));
    std::vector<double> bytes(static_cast<std::size_t>(length), 0.0);
    if (sender)
        for (std::size_t i = 0; i < text.size(); ++i) bytes[i] = static_cast<unsigned char>(text[i]);
    ranks.all_reduce_sum(std::span<double>(bytes));
    std::string received(bytes.size(), '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) received[i] = static_cast<char>(static_cast<unsigned char>(bytes[i]));
    return received;
}

}  // namespace

void require_same_run_on_every_rank(distributed::Communicator& ranks, const config::Json& resolved, const Dataset& dataset) {
    if (ranks.size() == 1) return;
    config::Json mine = {{"config", resolved}, {"data examples", data_fingerprint(dataset)}};
    mine["config"].erase("threads");
    const config::Json rank_zero = config::Json::parse(from_rank_zero(ranks, mine.dump()));
    const std::vector<config::JsonChange> changes = config::json_changes(&rank_zero, &mine);
    double ranks_differing = changes.empty() ? 0.0 : 1.0;
    ranks.all_reduce_sum(std::span<double>(&ranks_differing, 1));
    if (ranks_differing == 0) return;
    if (changes.empty())
        throw ConfigError("another rank's config or data differs from rank 0's (its message names the keys): every rank "
                          "must train the same run");
    std::string listed;
    for (const config::JsonChange& change : changes)
        listed += (listed.empty() ? "" : ", ") + change.key + " (rank 0: " + change.was + ", here: " + change.is + ")";
    throw ConfigError("this rank's run differs from rank 0's at " + listed +
                      ": every rank must train the same run (the same config, --set and data files)");
}

}  // namespace tf::train
