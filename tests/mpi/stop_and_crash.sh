#!/bin/bash
# A 2-rank training job as users run it, through mpirun:
#  term: SIGTERM to the ranks (what Slurm sends at a time limit) stops both after the same step;
#        rank 0 saves a checkpoint and the job exits 143 (128 + SIGTERM); --resume in one process continues it
#        exactly as a 1-process run that was never cut (every step's loss within 1e-5 relative).
#  kill: a rank killed with SIGKILL takes the job down (mpirun exits non-zero and names the rank),
#        and the last checkpoint is intact: a resume from it runs.
#  stall: a rank stopped with SIGSTOP leaves the other waiting in a sum; past --rank-timeout it
#        ends the job with a message naming the wait, and the last checkpoint resumes.
# Usage: stop_and_crash.sh TAPEFORMER MPIRUN term|kill|stall
set -euo pipefail
tapeformer=$1
mpirun=$2
scenario=$3
work=$(mktemp -d)
trap "rm -rf \"$work\"" EXIT
cd "$(dirname "$0")/../.."
# Slow enough steps (a wider model) that the job is still running when the signal comes. SGD with
# momentum, not the config's Adam: Adam divides each gradient by its own running size, so the
# rounding of a gradient that is exactly 0 in exact arithmetic (the key projection's bias) becomes a
# full-sized step, and two summation orders part by 1e-4 within 20 steps (docs/distributed.md).
settings=(--set threads=1 --set train.max_steps=100000 --set train.checkpoint_every=5 --set train.log_every=1
          --set train.eval_every=0 --set model.d_model=128 --set model.ffn_hidden=512 --set model.dropout=0.1
          --set optimizer.name=sgd --set optimizer.lr=0.05 --set optimizer.momentum=0.9
          --set 'optimizer.schedule={"name": "constant"}')

fail() { echo "FAIL: $*" >&2; exit 1; }

# Waits (up to 120 s) until run $1 has a checkpoint, as long as job $job runs.
wait_for_checkpoint() {
    for _ in $(seq 1200); do
        [ -f "$1/checkpoints/latest" ] && return 0
        kill -0 $job 2> /dev/null || { cat "$1.err" >&2; fail "the job ended before its first checkpoint"; }
        sleep 0.1
    done
    fail "no checkpoint in $1 after 120 s"
}

# The ranks: the tapeformer processes mpirun started.
ranks_of() { pgrep -P "$1" -f tapeformer || true; }

# Starts a 2-rank run into $work/$1 in the background (output in $work/$1.out and .err), sets $job
# to mpirun's pid, and returns once the run has a checkpoint.
start_job() {
    "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$tapeformer" ${rank_timeout:+--rank-timeout $rank_timeout} \
        train configs/copy_transformer.json "${settings[@]}" \
        --run-dir "$work/$1" > "$work/$1.out" 2> "$work/$1.err" &
    job=$!
    wait_for_checkpoint "$work/$1"
}

# The step of run $1's latest checkpoint.
latest_step() { sed -n 's/.*step-0*\([0-9][0-9]*\).*/\1/p' "$1/checkpoints/latest"; }

if [ "$scenario" = term ]; then
echo "== SIGTERM to both ranks"
start_job stopped
ranks=$(ranks_of $job)
[ "$(echo "$ranks" | wc -w)" = 2 ] || fail "expected 2 rank processes under mpirun, found: $ranks"
kill -TERM $ranks
status=0
wait $job || status=$?
[ $status = 143 ] || { cat "$work/stopped.err" >&2; fail "mpirun exited $status after SIGTERM, expected 143"; }
grep -q "stopped by a signal; continue with --resume" "$work/stopped.out" || fail "no stop message in: $(cat "$work/stopped.out")"
step=$(latest_step "$work/stopped")
rows=$(wc -l < "$work/stopped/metrics.jsonl")
[ "$rows" = "$step" ] || fail "the log has $rows steps but the checkpoint is at step $step"
"$tapeformer" train --resume "$work/stopped" --set train.max_steps=$((step + 3)) --quiet > /dev/null
"$tapeformer" train configs/copy_transformer.json "${settings[@]}" --set train.max_steps=$((step + 3)) \
    --run-dir "$work/uncut" --quiet > /dev/null
# "STEP LOSS" per line, sorted as join wants.
losses() { sed -n 's/.*"loss":\([^,]*\),.*"step":\([0-9]*\).*/\2 \1/p' "$1/metrics.jsonl" | sort; }
[ "$(losses "$work/stopped" | wc -l)" = $((step + 3)) ] || fail "the 1-process resume did not log steps $((step + 1))-$((step + 3))"
# Each step's loss of the cut-and-resumed run against the uncut run's: the ranks sum in another order.
join <(losses "$work/stopped") <(losses "$work/uncut") | awk '
    { gap = ($2 - $3) / $3; if (gap < 0) gap = -gap; if (gap > 1e-5) { print "step " $1 ": loss " $2 " against " $3; bad = 1 } }
    END { exit bad || NR != '$((step + 3))' }' || fail "the cut 2-rank run resumed in one process is not the uncut 1-process run"
echo "stopped at step $step on both ranks; resumed in one process to $((step + 3)), every loss as the uncut run's"
fi

if [ "$scenario" = kill ]; then
echo "== SIGKILL to one rank"
start_job killed
victim=$(ranks_of $job | tail -n 1)
kill -KILL "$victim"
status=0
wait $job || status=$?
[ $status != 0 ] || fail "mpirun exited 0 after a rank was killed"
grep -qi "signal 9\|killed" "$work/killed.err" "$work/killed.out" || fail "no message naming the killed rank: $(cat "$work/killed.err")"
step=$(latest_step "$work/killed")
"$tapeformer" train --resume "$work/killed" --set train.max_steps=$((step + 1)) --quiet > /dev/null \
    || fail "the checkpoint the killed job left does not resume"
echo "mpirun exited $status; the checkpoint at step $step resumes"
fi

if [ "$scenario" = stall ]; then
echo "== SIGSTOP to one rank, --rank-timeout 5"
rank_timeout=5
start_job stalled
victim=$(ranks_of $job | tail -n 1)
kill -STOP "$victim"
started=$SECONDS
status=0
wait $job || status=$?
kill -KILL "$victim" 2> /dev/null || true   # if the launcher left it stopped
[ $status != 0 ] || fail "mpirun exited 0 though a rank was stopped"
[ $((SECONDS - started)) -lt 120 ] || fail "the job took $((SECONDS - started)) s to end after the stop"
grep -q "past --rank-timeout" "$work/stalled.err" || fail "no message naming the wait: $(cat "$work/stalled.err")"
step=$(latest_step "$work/stalled")
"$tapeformer" train --resume "$work/stalled" --set train.max_steps=$((step + 1)) --quiet > /dev/null \
    || fail "the checkpoint the stalled job left does not resume"
echo "mpirun exited $status $((SECONDS - started)) s after the stop, naming the wait; the checkpoint at step $step resumes"
fi
