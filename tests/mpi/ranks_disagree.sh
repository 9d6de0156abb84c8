#!/bin/bash
# Ranks that would train different runs are refused before the model is built: rank 1 with another
# model size (which corrupted memory in the all-reduce), with another seed (which trained a silent
# average), or reading other data. Each job exits 2, the differing rank names the key, and no run
# directory holds a checkpoint.
# Usage: ranks_disagree.sh TAPEFORMER MPIRUN
set -uo pipefail
tapeformer=$1
mpirun=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$(dirname "$0")/../.."
common=(train configs/copy_transformer.json --set threads=1 --set train.max_steps=200 --set train.checkpoint_every=0 --quiet)
printf 'abcab\nbcabc\ncabca\nababc\nbcbca\nacbac\nbbcaa\ncabab\n' > "$work/one.txt"
printf 'xyzxy\nyzxyz\nzxyzx\nxyxyz\nyzyzx\nxzyxz\nyyzxx\nzxyxy\n' > "$work/other.txt"
lm=(train configs/char_lm.json --set threads=1 --set train.max_steps=3 --set data.batch_size=4 --quiet)

# Each rank runs tapeformer with its own arguments, read from $work/NAME.rankR by this wrapper: one
# program under mpirun, since Open MPI 5's mpirun crashed on the MPMD form (a : b).
cat > "$work/per_rank.sh" <<'WRAPPER'
#!/bin/bash
mapfile -t arguments < "$1.rank$OMPI_COMM_WORLD_RANK"
exec "$2" "${arguments[@]}"
WRAPPER

# refused NAME EXPECTED RANK0_ARGS... -- RANK1_ARGS...
refused() {
    local name=$1 expected=$2
    shift 2
    : > "$work/$name.rank0"
    while [ "$1" != -- ]; do echo "$1" >> "$work/$name.rank0"; shift; done
    shift
    printf '%s\n' "$@" > "$work/$name.rank1"
    printf '%s\n' --run-dir "$work/$name" | tee -a "$work/$name.rank0" >> "$work/$name.rank1"
    output=$("$mpirun" --allow-run-as-root --oversubscribe -np 2 bash "$work/per_rank.sh" "$work/$name" "$tapeformer" 2>&1)
    status=$?
    [ $status = 2 ] || { echo "FAIL: $name: mpirun exited $status, expected 2: $output" >&2; exit 1; }
    grep -q "$expected" <<< "$output" || { echo "FAIL: $name: no '$expected' in: $output" >&2; exit 1; }
    [ ! -e "$work/$name/checkpoints/latest" ] || { echo "FAIL: $name: a checkpoint was written" >&2; exit 1; }
    echo "$name: refused, naming $expected"
}
refused size "config.model.d_model (rank 0: 64, here: 32)" "${common[@]}" -- "${common[@]}" --set model.d_model=32
refused seed "config.seed (rank 0: 1, here: 7)" "${common[@]}" -- "${common[@]}" --set seed=7
refused data "data examples" "${lm[@]}" --set "data.path=$work/one.txt" -- "${lm[@]}" --set "data.path=$work/other.txt"
