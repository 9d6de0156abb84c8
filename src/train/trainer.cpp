// The training loop and everything around it: setting up (or resuming) a run directory, logging
// to metrics.jsonl and the terminal, evaluating, checkpointing, stopping cleanly on a signal.
#include "train/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <csignal>
#include <optional>

#include "autograd/dropout_mask.h"
#include "autograd/error.h"
#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "train/batch_shares.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/gradient_noise_window.h"
#include "train/gradient_buckets.h"
#include "train/gradient_sum.h"
#include "train/progress.h"
#include "train/provenance.h"
#include "train/resume_config.h"
#include "train/run_dir.h"
#include "train/run_loader.h"
#include "train/same_run_on_ranks.h"
#include "util/directory_lock.h"
#include "util/files.h"
#include "util/stop_signals.h"

namespace tf::train {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class TrainingRun {
public:
    TrainingRun(const RunConfig& config, const TrainOptions& options);
    TrainResult run();

private:
    void lock_run_directory();
    void start_fresh();
    void resume();
    void remove_stale_temporaries_of_run();
    // What every rank agrees on after a step: the batch's loss, and whether to stop.
    struct StepOutcome {
        double loss = 0;
        bool stop_requested = false;  // SIGINT/SIGTERM reached some rank
        bool out_of_time = false;     // some rank's clock says the time budget is spent
        double grad_norm = 0;         // before clipping
    };
    StepOutcome train_step(const std::vector<int64_t>& batch, int64_t batch_tokens, double lr);
    Tensor forward_and_loss(const BatchShare& piece, int64_t batch_tokens);
    void backward(const Tensor& piece_loss, bool completes_gradients);
    void sum_gradients();
    StepOutcome agree_after_step(double loss);
    bool leader() const { return ranks_.rank() == 0; }
    // `last`: the run ends after this step (max_steps reached or the time budget spent).
    // Returns true when this step's evaluation ends the run by train.patience (it then saves).
    bool after_step(double loss, double grad_norm, double lr, int64_t tokens, bool last);
    // Hands the step's metrics to options_.on_step, if any; false when it asks the run to stop.
    bool caller_lets_run_go_on(double loss, double grad_norm, double lr, int64_t tokens, bool evaluated);
    // Whose training time counts against train.max_minutes: the earlier processes of this run alone
    // (checked at start, on resume), or this one's so far too.
    enum class TimeSpent { by_earlier_processes, with_this_process };
    bool out_of_time(TimeSpent counted) const;
    bool plateau_reached() const;
    bool plateau_on_every_rank(bool plateau_here);
    enum class SaveAs { latest, latest_and_best };   // best.safetensors too, when the eval loss improved
    void save(SaveAs which);
    std::string last_good_checkpoint() const;
    // "step N: <problem>; stopping. The last good checkpoint is … [Run with --check-numerics …]"
    std::string stopping(const std::string& problem) const;

    const RunConfig& config_;
    TrainOptions options_;
    const StopRequests stop_requests_;   // SIGINT/SIGTERM from here on stop the run after a step
    std::unique_ptr<distributed::Communicator> own_ranks_;   // this process alone, when options name no ranks
    distributed::Communicator& ranks_;
    kernels::MatmulPrecisionScope precision_;   // the config's matmul precision, for this run only
    kernels::ReferenceKernels kernels_;          // the readable forms, when the config asks for them
    RunDirectory dir_;
    std::optional<DirectoryLock> lock_;   // the leader's, from before its first read of the run to the end
    Dataset dataset_;
    std::shared_ptr<SequenceModel> model_;
    std::unique_ptr<Optimizer> optimizer_;
    std::unique_ptr<Batcher> batcher_;
    std::unique_ptr<GradientBuckets> buckets_;   // over several ranks, with GradientSum::during_backward
    std::vector<Batch> valid_batches_;
    TrainingProgress progress_;
    GradientNoiseWindow noise_window_;   // the leader's, over the steps since the last log line
    Progress display_;
    Clock::time_point started_ = Clock::now();
    // Since the last log line:
    double loss_sum_ = 0;
    int64_t steps_since_log_ = 0, tokens_since_log_ = 0;
    double all_reduce_seconds_since_log_ = 0;   // in the step's all-reduces, waiting for the other ranks included
    Clock::time_point last_log_ = Clock::now();
    EvalMetrics last_valid_;
    bool stopped_by_caller_ = false;   // options_.on_step returned false
};

TrainingRun::TrainingRun(const RunConfig& config, const TrainOptions& options)
    : config_(config), options_(options), own_ranks_(options.ranks ? nullptr : distributed::single_process()),
      ranks_(options.ranks ? *options.ranks : *own_ranks_), precision_(config.precision), kernels_(config.kernels),
      dir_(options.run_dir.empty() ? "runs/" + config.name : options.run_dir),
      display_(config.train.max_steps, options.quiet || !leader()) {
    if (options.on_step && ranks_.size() > 1)
        throw ConfigError("a step listener (the Python module's train) runs in one process, and this run has " +
                          std::to_string(ranks_.size()) + " ranks");
    if (config.data.batch_size / config.train.accumulate_steps < ranks_.size())
        throw ConfigError("data.batch_size " + std::to_string(config.data.batch_size) + " over train.accumulate_steps " +
                          std::to_string(config.train.accumulate_steps) + " leaves micro-batches of " +
                          std::to_string(config.data.batch_size / config.train.accumulate_steps) + " examples, fewer than the " +
                          std::to_string(ranks_.size()) + " ranks sharing each: give each rank at least one");
    if (leader() || options.resume)
        dir_.require_directory(options.resume ? "--resume" : "--run-dir",
                               options.resume ? RunDirectory::Existing::required : RunDirectory::Existing::optional);
    if (config.threads > 0) kernels::set_num_threads(static_cast<int>(config.threads));
    set_check_numerics(options.check_numerics);
    dataset_ = load_dataset(config.data);
    require_same_run_on_every_rank(ranks_, config.resolved, dataset_);   // before any collective over the model
    model_ = build_run_model(config, dataset_);
    model_->train();
    // A bad --init file fails here, before the run directory is touched.
    if (!options.resume && !options.init_weights.empty())
        load_weights(options.init_weights, *model_, dataset_.tokenizer, config.resolved);
    optimizer_ = make_optimizer(config.optimizer, model_->named_parameters());
    BatcherOptions batching = config.data.batching();
    batcher_ = std::make_unique<Batcher>(dataset_.train, batching);
    valid_batches_ = evaluation_batches(dataset_.valid, batching.batch_size, dataset_.is_lm());
    if (config.train.patience > 0 && valid_batches_.empty())
        throw ConfigError("train.patience stops on the validation loss, and this data has no validation split: give "
                          "data a validation share or leave patience out");
    progress_.best_valid_loss = NAN;
    if (leader()) lock_run_directory();
    if (options.resume) resume();
    else if (leader()) start_fresh();
    // The others wait until the leader has checked and written the run directory (a refusal there
    // ends the job before any step).
    distributed::wait_for_every_rank(ranks_);
    if (ranks_.size() > 1 && options.gradient_sum == GradientSum::during_backward)
        buckets_ = std::make_unique<GradientBuckets>(model_->parameters(), ranks_);
}

// A new run goes into a new folder, an empty one, or one whose start failed; never over the user's
// files. Then one writer at a time (util/directory_lock.h), checked before anything is read or written.
void TrainingRun::lock_run_directory() {
    if (!options_.resume) {
        if (const std::string file = foreign_entry(dir_.root(), "config.resolved.json"); !file.empty())
            throw ConfigError("--run-dir " + dir_.root() + ": the folder holds '" + file + "' and no run; a new run goes " +
                              "into a new or empty folder (nothing there was changed)");
        make_directories(dir_.root());
    }
    lock_.emplace(dir_.root());
}

void TrainingRun::start_fresh() {
    if (dir_.has_run())
        throw ConfigError("--run-dir " + dir_.root() + ": the directory already holds a run; continue it with --resume " +
                          dir_.root() + ", or choose another with --run-dir");
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
    write_provenance(dir_.provenance(), provenance_now(config_.resolved, dataset_));
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
    const LoadedCheckpoint loaded = load_checkpoint(latest, *model_, optimizer_.get(), dataset_.tokenizer);
    progress_ = loaded.progress;
    try {
        batcher_->restore(progress_.batcher);
    } catch (const ValueError& error) {   // a data order that does not fit this data
        throw CheckpointError(latest + ": metadata 'batcher': " + error.what());
    }
    loss_sum_ = progress_.log_loss_sum, steps_since_log_ = progress_.log_steps;
    if (!leader()) return;   // the other ranks only read the run
    remove_stale_temporaries_of_run();
    dir_.truncate_metrics(progress_.step);
    write_file_atomic(dir_.config(), config_.resolved.dump(2) + "\n");
    write_provenance(dir_.provenance(), provenance_now(config_.resolved, dataset_));
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

// One training step, as the textbook writes it:
//   forward → loss → backward   on each piece of the batch this process computes (one piece unless
//                                the batch is split over ranks or into micro-batches)
//   gradient sum                over the ranks, so that every rank holds the whole batch's gradient
//   clip → step                 the optimizer's update, then the gradients zeroed for the next step
TrainingRun::StepOutcome TrainingRun::train_step(const std::vector<int64_t>& batch, int64_t batch_tokens, double lr) {
    double loss = 0;
    const std::vector<BatchShare> pieces = shares_of_batch(batch, config_.train.accumulate_steps, ranks_.rank(), ranks_.size());
    for (const BatchShare& piece : pieces) {
        const Tensor piece_loss = forward_and_loss(piece, batch_tokens);   // scalar: the piece's share of the batch's loss
        loss += piece_loss.item();
        backward(piece_loss, &piece == &pieces.back());   // adds dL/dθ into every parameter's grad
    }
    sum_gradients();
    StepOutcome outcome = agree_after_step(loss);
    if (!std::isfinite(outcome.loss)) throw NonFiniteError(stopping("the loss is " + non_finite_text(outcome.loss)));
    if (leader()) noise_window_.add(model_->parameters());   // the batch's gradient, before clipping
    outcome.grad_norm = clip_grad_norm(model_->parameters(), config_.optimizer.clip_grad_norm.value_or(INFINITY));
    if (!std::isfinite(outcome.grad_norm)) throw NonFiniteError(stopping("the gradient norm is " + non_finite_text(outcome.grad_norm)));
    optimizer_->step(lr);
    optimizer_->zero_grad();
    return outcome;
}

// The batch's loss is the mean over all its N target tokens, L = (1/N) Σ_pieces Σ_tokens ℓ. A piece's
// cross_entropy is the mean over its own n_i tokens, so it counts with weight n_i / N: the pieces'
// gradients then add up to the whole batch's, whichever rank or micro-batch computed them.
Tensor TrainingRun::forward_and_loss(const BatchShare& piece, int64_t batch_tokens) {
    // Every piece draws its dropout keys from the step's seed, so an example's masks are the same
    // in any piece (autograd/dropout_mask.h).
    model_->dropout_rng()->reseed(hash_coordinate(config_.seed + 1, progress_.step));
    const BatchRowsScope rows(piece.first_row);
    // The curriculum's τ factor travels with this step's forward only; evaluation runs without it,
    // as the saved model will be used.
    ForwardObserver curriculum{.temperature_scale = config_.train.temperature_curriculum.multiplier_at(progress_.step)};
    const Batch examples = make_batch(batcher_->examples(), piece.examples, dataset_.is_lm());
    ModelInput input = to_model_input(examples);
    input.observer = &curriculum;
    const Tensor logits = model_->forward(input);  // (b, T, V)
    const Tensor mean_loss = cross_entropy(logits, examples.tgt_out, {kPadId, config_.train.label_smoothing});
    return mean_loss * (static_cast<double>(examples.tokens) / static_cast<double>(batch_tokens));
}

// Over several ranks with gradient buckets, the piece that completes the gradients also starts
// summing each bucket over the ranks as soon as the walk is past its parameters' first use.
void TrainingRun::backward(const Tensor& piece_loss, bool completes_gradients) {
    Tape& tape = Tape::current();
    if (buckets_ && completes_gradients) {
        buckets_->watch(tape);
        tape.backward(piece_loss, {}, [this](std::size_t index) { buckets_->walked_past(index); });
    } else {
        tape.backward(piece_loss);
    }
    tape.clear();
}

// Every rank's gradients summed over the ranks (the buckets still in flight, or all in one buffer):
// each rank then holds the gradient of the whole batch. One process: nothing to do.
void TrainingRun::sum_gradients() {
    const Clock::time_point start = Clock::now();
    if (buckets_) buckets_->finish();
    else sum_gradients_over_ranks(model_->parameters(), ranks_);
    all_reduce_seconds_since_log_ += seconds_since(start);
}

// The batch's loss (the ranks' shares added up), and whether some rank was asked to stop or is out of
// time: one all-reduce, so every rank takes the same decision after the same step.
TrainingRun::StepOutcome TrainingRun::agree_after_step(double loss) {
    const Clock::time_point start = Clock::now();
    double agreed[3] = {loss, stop_requests_.requested() ? 1.0 : 0.0, out_of_time(TimeSpent::with_this_process) ? 1.0 : 0.0};
    ranks_.all_reduce_sum(std::span<double>(agreed));
    all_reduce_seconds_since_log_ += seconds_since(start);
    return {.loss = agreed[0], .stop_requested = agreed[1] > 0, .out_of_time = agreed[2] > 0};
}

std::string TrainingRun::stopping(const std::string& problem) const {
    return "step " + std::to_string(progress_.step + 1) + ": " + problem + "; stopping. " + last_good_checkpoint() +
           (options_.check_numerics ? "" : " Run with --check-numerics to find the op and layer.");
}

std::string TrainingRun::last_good_checkpoint() const {
    const std::string latest = dir_.latest();
    return latest.empty() ? "No checkpoint was saved yet." : "The last good checkpoint is " + latest + ".";
}

void TrainingRun::save(SaveAs which) {
    const bool also_best = which == SaveAs::latest_and_best;
    progress_.dropout_rng = model_->dropout_rng()->state();
    progress_.batcher = batcher_->state();
    progress_.log_loss_sum = loss_sum_, progress_.log_steps = steps_since_log_;
    progress_.elapsed_seconds += seconds_since(started_);
    started_ = Clock::now();
    const std::string resolved = config_.resolved.dump();
    const std::string tokenizer = checkpoint_tokenizer(dataset_.tokenizer);
    save_checkpoint(dir_.checkpoint(progress_.step), *model_, optimizer_.get(), progress_, resolved, tokenizer);
    dir_.set_latest(progress_.step);
    dir_.prune_checkpoints(config_.train.keep_checkpoints);
    if (also_best) save_checkpoint(dir_.best(), *model_, nullptr, progress_, resolved, tokenizer);
}

// A run's last step, by steps or by time, evaluates, logs and saves like a scheduled one.
bool TrainingRun::after_step(double loss, double grad_norm, double lr, int64_t tokens, bool last) {
    const TrainConfig& train = config_.train;
    const int64_t step = progress_.step;
    loss_sum_ += loss, tokens_since_log_ += tokens, ++steps_since_log_;
    const bool evaluate_now = (train.eval_every > 0 && step % train.eval_every == 0) || last;
    bool improved = false, plateau = false;
    nlohmann::json row;
    if (evaluate_now && !valid_batches_.empty()) {
        last_valid_ = evaluate(*model_, valid_batches_, train.eval_batches);
        improved = std::isnan(progress_.best_valid_loss) || last_valid_.loss < progress_.best_valid_loss;
        if (improved) progress_.best_valid_loss = last_valid_.loss, progress_.best_step = step;
        plateau = plateau_reached();
        row = {{"valid_loss", last_valid_.loss}, {"valid_perplexity", last_valid_.perplexity},
               {"valid_token_accuracy", last_valid_.token_accuracy}, {"valid_sequence_accuracy", last_valid_.sequence_accuracy}};
    }
    last = last || plateau;
    if (step % train.log_every == 0 || evaluate_now || last) {
        const double interval_seconds = std::max(1e-9, seconds_since(last_log_));
        const double tokens_per_second = static_cast<double>(tokens_since_log_) / interval_seconds;
        row["step"] = step, row["lr"] = lr, row["loss"] = loss_sum_ / static_cast<double>(steps_since_log_);
        row["grad_norm"] = grad_norm, row["tokens_per_s"] = tokens_per_second;
        if (const double noise = noise_window_.take(); std::isfinite(noise)) row["grad_noise_to_signal"] = noise;
        if (ranks_.size() > 1) row["all_reduce_share"] = all_reduce_seconds_since_log_ / interval_seconds;
        append_to_file(dir_.metrics(), row.dump() + "\n");
        display_.update(step, row["loss"].get<double>(), tokens_per_second, evaluate_now ? &last_valid_ : nullptr);
        loss_sum_ = 0, steps_since_log_ = 0, tokens_since_log_ = 0, all_reduce_seconds_since_log_ = 0, last_log_ = Clock::now();
    }
    if ((train.checkpoint_every > 0 && step % train.checkpoint_every == 0) || last || improved)
        save(improved ? SaveAs::latest_and_best : SaveAs::latest);
    if (options_.on_step && !caller_lets_run_go_on(loss, grad_norm, lr, tokens, evaluate_now && !valid_batches_.empty()))
        stopped_by_caller_ = true;
    return plateau;
}

bool TrainingRun::caller_lets_run_go_on(double loss, double grad_norm, double lr, int64_t tokens, bool evaluated) {
    config::Json metrics = {{"step", progress_.step}, {"loss", loss}, {"lr", lr}, {"grad_norm", grad_norm}, {"tokens", tokens}};
    if (evaluated) {
        metrics["valid_loss"] = last_valid_.loss, metrics["valid_perplexity"] = last_valid_.perplexity;
        metrics["valid_token_accuracy"] = last_valid_.token_accuracy;
        metrics["valid_sequence_accuracy"] = last_valid_.sequence_accuracy;
    }
    return options_.on_step(metrics);
}

// train.patience evaluations, each train.eval_every steps apart, since the best validation loss:
//     step − best_step ≥ patience · eval_every.
// It reads only the progress a checkpoint keeps, so a resumed run knows it too.
bool TrainingRun::plateau_reached() const {
    const TrainConfig& train = config_.train;
    return train.patience > 0 && !std::isnan(progress_.best_valid_loss) &&
           progress_.step - progress_.best_step >= train.patience * train.eval_every;
}

// Only the leader evaluates; at an evaluation step every rank learns whether it ended the run.
bool TrainingRun::plateau_on_every_rank(bool plateau_here) {
    const TrainConfig& train = config_.train;
    if (train.patience == 0 || progress_.step % train.eval_every != 0) return false;
    double plateau = plateau_here ? 1.0 : 0.0;
    ranks_.all_reduce_sum(std::span<double>(&plateau, 1));
    return plateau > 0;
}

// max_minutes counts the training time of earlier processes of this run too.
bool TrainingRun::out_of_time(TimeSpent counted) const {
    const double budget_seconds = config_.train.max_minutes * 60.0;
    const double spent = progress_.elapsed_seconds + (counted == TimeSpent::with_this_process ? seconds_since(started_) : 0.0);
    return budget_seconds > 0 && spent >= budget_seconds;
}

TrainResult TrainingRun::run() {
    TrainResult result{0, false, 0, {}, dir_.root()};
    started_ = Clock::now();   // building the data and the model is not training time
    if (out_of_time(TimeSpent::by_earlier_processes) && progress_.step < config_.train.max_steps)   // resumed with the budget already spent
        display_.message("time budget already spent at step " + std::to_string(progress_.step));
    else if (plateau_reached() && progress_.step < config_.train.max_steps)
        display_.message("stopped early before, at step " + std::to_string(progress_.step) + " (train.patience); nothing to train");
    else
        while (progress_.step < config_.train.max_steps) {
            const std::vector<int64_t> batch = batcher_->next_indices();
            const int64_t batch_tokens = target_tokens(batcher_->examples(), batch, dataset_.is_lm());
            const double lr = config_.optimizer.lr_at(optimizer_->step_count() + 1);
            StepOutcome outcome;
            try {
                outcome = train_step(batch, batch_tokens, lr);
            } catch (const NumericsError& error) {  // --check-numerics: names the op and layer, not the step
                throw NonFiniteError(stopping(error.what()));
            }
            ++progress_.step;
            const bool last = progress_.step == config_.train.max_steps || outcome.out_of_time;
            const bool plateau_here = leader() && after_step(outcome.loss, outcome.grad_norm, lr, batch_tokens, last);
            if (!last && plateau_on_every_rank(plateau_here)) {
                display_.message("validation loss not lower for " + std::to_string(config_.train.patience) +
                                 " evaluations: stopped early at step " + std::to_string(progress_.step) + " (best at step " +
                                 std::to_string(progress_.best_step) + ")");
                break;
            }
            if (outcome.out_of_time) {
                display_.message("time budget reached at step " + std::to_string(progress_.step));
                break;
            }
            if (outcome.stop_requested) {   // every rank saw it after the same step
                if (leader() && !last) save(SaveAs::latest);
                if (leader())   // the others would read `latest` while rank 0 may still be writing it
                    display_.message("stopped by a signal at step " + std::to_string(progress_.step) + "; saved " + dir_.latest());
                // Every rank stops; one that saw no signal itself reports the one mpirun passes on.
                result.stop_signal = stop_requests_.requested() ? stop_requests_.signal_number() : SIGTERM;
                break;
            }
            if (stopped_by_caller_ && !last) {   // one process (the constructor refuses a listener with several ranks)
                save(SaveAs::latest);
                display_.message("stopped at the caller's request at step " + std::to_string(progress_.step) + "; saved " + dir_.latest());
                result.stopped_by_caller = true;
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
