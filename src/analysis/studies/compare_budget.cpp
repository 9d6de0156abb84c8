// A comparison's budget (analysis/studies/compare_budget.h).
#include "analysis/studies/compare_budget.h"

#include <algorithm>
#include <cmath>

#include "autograd/kernels/gemm.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "datasets/batching.h"
#include "datasets/dataset.h"
#include "train/evaluate.h"
#include "train/run_loader.h"

namespace tf {

namespace {

struct BudgetKey {
    const char* key;
    BudgetKind kind;
};
constexpr BudgetKey kBudgetKeys[] = {
    {"steps", BudgetKind::steps}, {"minutes", BudgetKind::minutes}, {"flops", BudgetKind::flops}, {"until_plateau", BudgetKind::until_plateau}};

std::string format_amount(double amount) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", amount);
    return text;
}

}  // namespace

CompareBudget read_budget(config::JsonReader& reader) {
    CompareBudget budget;
    int given = 0;
    for (const BudgetKey& entry : kBudgetKeys) {
        if (!reader.has(entry.key)) continue;
        ++given;
        budget.kind = entry.kind;
        switch (entry.kind) {
            case BudgetKind::steps: budget.amount = static_cast<double>(reader.integer(entry.key, {.min = 1, .max = 100'000'000})); break;
            case BudgetKind::minutes: budget.amount = reader.number(entry.key, 1e-6, 1e6); break;
            case BudgetKind::flops: budget.amount = reader.number(entry.key, 1.0, 1e21); break;
            case BudgetKind::until_plateau: budget.amount = static_cast<double>(reader.integer(entry.key, {.min = 1, .max = 1'000'000})); break;
        }
    }
    reader.finish();
    if (given != 1)
        throw ConfigError(reader.path() + ": expected exactly one of \"steps\", \"minutes\", \"flops\" or \"until_plateau\" "
                          "(what every variant gets equally), got " + std::to_string(given));
    return budget;
}

double training_flops_per_token(SequenceModel& model, const train::Batch& batch) {
    Tape::current().clear();
    kernels::reset_gemm_flop_count();
    const Tensor logits = model.forward(train::to_model_input(batch));
    Tape::current().backward(cross_entropy(logits, batch.tgt_out, {train::kPadId, 0.0}));
    model.zero_grad();
    return static_cast<double>(kernels::gemm_flop_count()) / static_cast<double>(batch.tokens);
}

double training_flops_per_step(const train::RunConfig& run) {
    const train::Dataset dataset = train::load_dataset(run.data);
    const auto batches = train::evaluation_batches(dataset.train, run.data.batch_size, dataset.is_lm());
    if (batches.empty()) return 0;
    const double per_token = training_flops_per_token(*train::build_run_model(run, dataset), batches[0]);
    double tokens = 0;
    for (const train::Batch& batch : batches) tokens += static_cast<double>(batch.tokens);
    return per_token * tokens / static_cast<double>(batches.size());
}

void apply_budget(const CompareBudget& budget, double flops_per_step, config::Json& train) {
    switch (budget.kind) {
        case BudgetKind::steps:
            if (budget.amount > 0) train["max_steps"] = static_cast<int64_t>(budget.amount);
            break;
        case BudgetKind::minutes: train["max_minutes"] = budget.amount; break;
        case BudgetKind::flops:
            train["max_steps"] = std::max<int64_t>(1, static_cast<int64_t>(std::floor(budget.amount / std::max(1.0, flops_per_step))));
            break;
        case BudgetKind::until_plateau: train["patience"] = static_cast<int64_t>(budget.amount); break;
    }
}

std::string budget_text(const CompareBudget& budget) {
    switch (budget.kind) {
        case BudgetKind::steps: return "equal steps";
        case BudgetKind::minutes: return "equal wall-clock time (" + format_amount(budget.amount) + " minutes of training each)";
        case BudgetKind::flops: return "equal training compute (" + format_amount(budget.amount) + " matmul FLOPs each)";
        case BudgetKind::until_plateau:
            return "each until its validation loss stopped improving (" + format_amount(budget.amount) +
                   " evaluations without a lower one)";
    }
    return "";
}

}  // namespace tf
