#!/bin/bash
# Under `mpirun -np 2` every command but train and compare (the two that share their work among
# ranks) is refused: a message naming the command, exit 2, nothing run twice over the same files.
# Usage: one_process_commands.sh TAPEFORMER MPIRUN
set -uo pipefail
tapeformer=$1
mpirun=$2
cd "$(dirname "$0")/../.."
for command in "eval --run runs/nowhere" "analyze --run runs/nowhere" "bench --workload W3 --steps 1"; do
    output=$("$mpirun" --allow-run-as-root --oversubscribe -np 2 "$tapeformer" $command 2>&1)
    status=$?
    [ $status = 2 ] || { echo "FAIL: mpirun -np 2 tapeformer $command exited $status, expected 2: $output" >&2; exit 1; }
    name=${command%% *}
    grep -q "\`tapeformer $name\` runs in one process, but was started as 2" <<< "$output" \
        || { echo "FAIL: no refusal naming $name in: $output" >&2; exit 1; }
done
echo "eval, analyze and bench refused under mpirun -np 2"
