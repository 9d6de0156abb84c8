// The training loop and everything around it: setting up (or resuming) a run directory, logging
// to metrics.jsonl and the terminal, evaluating, checkpointing, stopping cleanly on a signal.
#include "train/trainer.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/progress.h"
#include "train/resume_config.h"
#include "train/run_dir.h"
#include "util/files.h"

namespace tf::train {

namespace {

std::atomic<bool> g_stop_requested{false};
extern "C" void on_stop_signal(int) { g_stop_requested = true; }

// Installs the SIGINT/SIGTERM handlers for the run's lifetime and restores the old ones after.
class StopSignals {
public:
    StopSignals() : old_int_(std::signal(SIGINT, on_stop_signal)), old_term_(std::signal(SIGTERM, on_stop_signal)) {
        g_stop_requested = false;
    }
    ~StopSignals() {
        std::signal(SIGINT, old_int_);
        std::signal(SIGTERM, old_term_);
    }

private:
    void (*old_int_)(int);
    void (*old_term_)(int);
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class TrainingRun {
public:
    TrainingRun(const RunConfig& config, const TrainOptions& options);
    TrainResult run();

private:
    void start_fresh();
    void resume();
    void remove_stale_temporaries_of_run();
    double train_step(const Batch& batch, double& grad_norm);  // returns the loss
    // `last`: the run ends after this step (max_steps reached or the time budget spent).
    void after_step(double loss, double grad_norm, double lr, int64_t tokens, bool last);
    bool out_of_time(bool this_process_too) const;
    void save(bool also_best);
    std::string last_good_checkpoint() const;
    // "step N: <problem>; stopping. The last good checkpoint is … [Run with --check-numerics …]"
    std::string stopping(const std::string& problem) const;

    const RunConfig& config_;
    TrainOptions options_;
    kernels::MatmulPrecisionScope precision_;   // the config's matmul precision, for this run only
    RunDirectory dir_;
    Dataset dataset_;
    std::shared_ptr<SequenceModel> model_;
    std::unique_ptr<Optimizer> optimizer_;
    std::unique_ptr<Batcher> batcher_;
    std::vector<Batch> valid_batches_;
    TrainingProgress progress_;
    Progress display_;
    Clock::time_point started_ = Clock::now();
    // Since the last log line:
    double loss_sum_ = 0;
    int64_t steps_since_log_ = 0, tokens_since_log_ = 0;
    Clock::time_point last_log_ = Clock::now();
    EvalMetrics last_valid_;
};

TrainingRun::TrainingRun(const RunConfig& config, const TrainOptions& options)
    : config_(config), options_(options), precision_(config.precision), dir_(options.run_dir.empty() ? "runs/" + config.name : options.run_dir),
      display_(config.train.max_steps, options.quiet) {
    dir_.require_directory(options.resume ? "--resume" : "--run-dir",
                           options.resume ? RunDirectory::Existing::required : RunDirectory::Existing::optional);
    if (config.threads > 0) kernels::set_num_threads(static_cast<int>(config.threads));
    set_check_numerics(options.check_numerics);
    dataset_ = load_dataset(config.data);
    ModelBuildContext build;
    build.vocab_size = dataset_.vocab_size;
    build.pad_id = kPadId;
    build.seed = config.seed;
    build.dropout_rng = std::make_shared<Rng>(config.seed + 1);
    model_ = build_model(config.model, build);
    model_->train();
    optimizer_ = make_optimizer(config.optimizer, model_->named_parameters());
    BatcherOptions batching = config.data.batching();
    batcher_ = std::make_unique<Batcher>(dataset_.train, batching);
    valid_batches_ = evaluation_batches(dataset_.valid, batching.batch_size, dataset_.is_lm());
    progress_.best_valid_loss = NAN;
    if (options.resume) resume();
    else start_fresh();
}

void TrainingRun::start_fresh() {
    if (dir_.has_run())
        throw ConfigError("--run-dir " + dir_.root() + ": the directory already holds a run; continue it with --resume " +
                          dir_.root() + ", or choose another with --run-dir");
    if (!options_.init_weights.empty()) load_weights(options_.init_weights, *model_);   // a bad file fails before any write
    remove_stale_temporaries_of_run();
    // A start that failed before its first checkpoint left a config and a log: start over, keeping
    // the log (appended to those of earlier failed starts).
    if (file_exists(dir_.metrics()) && !read_file(dir_.metrics()).empty()) {
        const std::string failed = dir_.metrics() + ".failed-start";
        write_file_atomic(failed, (file_exists(failed) ? read_file(failed) : "") + read_file(dir_.metrics()));
        display_.message("no checkpoint in " + dir_.root() + ": starting it over (the old log is in metrics.jsonl.failed-start)");
    }
    make_directories(dir_.checkpoints());
    write_file_atomic(dir_.config(), config_.resolved.dump(2) + "\n");
    dataset_.tokenizer.save(dir_.vocab());
    write_file_atomic(dir_.metrics(), "");
}

// Everything is checked — the checkpoint, the config it was saved with, the vocabulary — before
// the first write (metrics truncated, config rewritten), so a refused resume leaves the run as it was.
void TrainingRun::resume() {
    const std::string latest = dir_.latest();
    if (latest.empty())
        throw CheckpointError("--resume " + dir_.root() + ": no checkpoint there (checkpoints/latest is missing)");
    check_resume_config(saved_config(latest), config_.resolved, latest);
    if (Tokenizer::load(dir_.vocab()).to_json() != dataset_.tokenizer.to_json())
        throw DataError("--resume " + dir_.root() + ": the data gives a different vocabulary than " + dir_.vocab() +
                        " (did the data file change?)");
    const LoadedCheckpoint loaded = load_checkpoint(latest, *model_, optimizer_.get());
    progress_ = loaded.progress;
    model_->dropout_rng()->set_state(progress_.dropout_rng);
    try {
        batcher_->restore(progress_.batcher);
    } catch (const ValueError& error) {   // a data order that does not fit this data
        throw CheckpointError(latest + ": metadata 'batcher': " + error.what());
    }
    loss_sum_ = progress_.log_loss_sum, steps_since_log_ = progress_.log_steps;
    remove_stale_temporaries_of_run();
    dir_.truncate_metrics(progress_.step);
    write_file_atomic(dir_.config(), config_.resolved.dump(2) + "\n");
}

// A process killed mid-save leaves "<file>.tmp-<pid>" behind; the next run into the directory
// removes those whose process is gone.
void TrainingRun::remove_stale_temporaries_of_run() {
    for (const std::string& directory : {dir_.root(), dir_.checkpoints()})
        for (const std::string& removed : remove_stale_temporaries(directory))
            display_.message("removed " + removed + ", left by a save that was cut off");
}

// "NaN", "+inf" or "-inf" (std::to_string would print "-nan").
std::string non_finite_text(double value) { return std::isnan(value) ? "NaN" : (value > 0 ? "+inf" : "-inf"); }

double TrainingRun::train_step(const Batch& batch, double& grad_norm) {
    Tape& tape = Tape::current();
    tape.clear();
    // The curriculum's τ factor travels with this step's forward only; evaluation runs without it,
    // as the saved model will be used.
    ForwardObserver curriculum{.temperature_scale = config_.train.temperature_curriculum.multiplier_at(progress_.step)};
    ModelInput input = to_model_input(batch);
    input.observer = &curriculum;
    try {
        const Tensor logits = model_->forward(input);  // (B, T, V)
        const Tensor loss = cross_entropy(logits, batch.tgt_out, {kPadId, config_.train.label_smoothing});
        const double value = loss.item();
        if (!std::isfinite(value)) throw NonFiniteError(stopping("the loss is " + non_finite_text(value)));
        tape.backward(loss);
        grad_norm = clip_grad_norm(model_->parameters(), config_.optimizer.clip_grad_norm.value_or(INFINITY));
        if (!std::isfinite(grad_norm)) throw NonFiniteError(stopping("the gradient norm is " + non_finite_text(grad_norm)));
        return value;
    } catch (const NumericsError& error) {  // --check-numerics: names the op and layer, not the step
        throw NonFiniteError(stopping(error.what()));
    }
}

std::string TrainingRun::stopping(const std::string& problem) const {
    return "step " + std::to_string(progress_.step + 1) + ": " + problem + "; stopping. " + last_good_checkpoint() +
           (options_.check_numerics ? "" : " Run with --check-numerics to find the op and layer.");
}

std::string TrainingRun::last_good_checkpoint() const {
    const std::string latest = dir_.latest();
    return latest.empty() ? "No checkpoint was saved yet." : "The last good checkpoint is " + latest + ".";
}

void TrainingRun::save(bool also_best) {
    progress_.dropout_rng = model_->dropout_rng()->state();
    progress_.batcher = batcher_->state();
    progress_.log_loss_sum = loss_sum_, progress_.log_steps = steps_since_log_;
    progress_.elapsed_seconds += seconds_since(started_);
    started_ = Clock::now();
    const std::string resolved = config_.resolved.dump();
    save_checkpoint(dir_.checkpoint(progress_.step), *model_, optimizer_.get(), progress_, resolved);
    dir_.set_latest(progress_.step);
    dir_.prune_checkpoints(config_.train.keep_checkpoints);
    if (also_best) save_checkpoint(dir_.best(), *model_, nullptr, progress_, resolved);
}

// A run's last step, by steps or by time, evaluates, logs and saves like a scheduled one.
void TrainingRun::after_step(double loss, double grad_norm, double lr, int64_t tokens, bool last) {
    const TrainConfig& train = config_.train;
    const int64_t step = progress_.step;
    loss_sum_ += loss, tokens_since_log_ += tokens, ++steps_since_log_;
    const bool evaluate_now = (train.eval_every > 0 && step % train.eval_every == 0) || last;
    bool improved = false;
    nlohmann::json row;
    if (evaluate_now && !valid_batches_.empty()) {
        last_valid_ = evaluate(*model_, valid_batches_, train.eval_batches);
        improved = std::isnan(progress_.best_valid_loss) || last_valid_.loss < progress_.best_valid_loss;
        if (improved) progress_.best_valid_loss = last_valid_.loss, progress_.best_step = step;
        row = {{"valid_loss", last_valid_.loss}, {"valid_perplexity", last_valid_.perplexity},
               {"valid_token_accuracy", last_valid_.token_accuracy}, {"valid_sequence_accuracy", last_valid_.sequence_accuracy}};
    }
    if (step % train.log_every == 0 || evaluate_now || last) {
        const double tokens_per_second = static_cast<double>(tokens_since_log_) / std::max(1e-9, seconds_since(last_log_));
        row["step"] = step, row["lr"] = lr, row["loss"] = loss_sum_ / static_cast<double>(steps_since_log_);
        row["grad_norm"] = grad_norm, row["tokens_per_s"] = tokens_per_second;
        std::ofstream(dir_.metrics(), std::ios::app) << row.dump() << "\n";
        display_.update(step, row["loss"].get<double>(), tokens_per_second, evaluate_now ? &last_valid_ : nullptr);
        loss_sum_ = 0, steps_since_log_ = 0, tokens_since_log_ = 0, last_log_ = Clock::now();
    }
    if ((train.checkpoint_every > 0 && step % train.checkpoint_every == 0) || last || improved) save(improved);
}

// max_minutes counts the training time of earlier processes of this run too.
bool TrainingRun::out_of_time(bool this_process_too) const {
    const double budget_seconds = config_.train.max_minutes * 60.0;
    const double spent = progress_.elapsed_seconds + (this_process_too ? seconds_since(started_) : 0.0);
    return budget_seconds > 0 && spent >= budget_seconds;
}

TrainResult TrainingRun::run() {
    StopSignals signals;
    TrainResult result{false, 0, {}, dir_.root()};
    started_ = Clock::now();   // building the data and the model is not training time
    if (out_of_time(false) && progress_.step < config_.train.max_steps)   // resumed with the budget already spent
        display_.message("time budget already spent at step " + std::to_string(progress_.step));
    else
        while (progress_.step < config_.train.max_steps) {
            if (g_stop_requested) {
                save(false);
                display_.message("stopped by a signal at step " + std::to_string(progress_.step) + "; saved " + dir_.latest());
                result.interrupted = true;
                break;
            }
            const Batch batch = batcher_->next();
            const double lr = config_.optimizer.lr_at(optimizer_->step_count() + 1);
            double grad_norm = 0;
            const double loss = train_step(batch, grad_norm);
            optimizer_->step(lr);
            optimizer_->zero_grad();
            Tape::current().clear();
            ++progress_.step;
            const bool budget_spent = out_of_time(true);
            after_step(loss, grad_norm, lr, batch.tokens, progress_.step == config_.train.max_steps || budget_spent);
            if (budget_spent) {
                display_.message("time budget reached at step " + std::to_string(progress_.step));
                break;
            }
        }
    display_.finish();
    result.steps = progress_.step;
    result.valid = last_valid_;
    return result;
}

}  // namespace

TrainResult train(const RunConfig& config, const TrainOptions& options) {
    TrainingRun run(config, options);
    return run.run();
}

}  // namespace tf::train
