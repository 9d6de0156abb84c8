#!/usr/bin/env python3
"""Random-token data for the reference workloads W1-W4 (configs/bench/README.md, bench/README.md).

The workloads train on uniformly random tokens over a vocabulary of 96. The synthetic tasks'
alphabets stop at 62 symbols, so the bench configs read JSONL token ids instead (ids 0-3 are
<pad> <bos> <eos> <unk>; the symbols are ids 4..95). Batching adds <bos>/<eos>, so:
  seq2seq: src = 64 ids, tgt = the first 63 of them -> src (B, 64), tgt_in = <bos> tgt (B, 64),
           tgt_out = tgt <eos> (B, 64): PyTorch's shapes (tgt_in = BOS + src[:-1]).
  lm:      src = 127 ids -> tgt_in = <bos> x (B, 128), tgt_out = x <eos> (B, 128).
Deterministic: the same seed always writes the same bytes.

  python3 configs/bench/make_random_tokens.py [--out-dir data/bench] [--seed 0]
"""
import argparse
import json
import os
import random

VOCAB = 96
FIRST_SYMBOL = 4  # after <pad> <bos> <eos> <unk>


def random_ids(rng, length):
    return [rng.randrange(FIRST_SYMBOL, VOCAB) for _ in range(length)]


def write_lines(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as out:
        for row in rows:
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
    os.replace(tmp, path)  # atomic: a half-written file never takes the real name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default="data/bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seq2seq-examples", type=int, default=4096)
    parser.add_argument("--lm-examples", type=int, default=2048)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = random.Random(args.seed)
    seq2seq = []
    for _ in range(args.seq2seq_examples):
        src = random_ids(rng, 64)
        seq2seq.append({"src": src, "tgt": src[:63]})
    lm = [{"src": random_ids(rng, 127)} for _ in range(args.lm_examples)]
    write_lines(os.path.join(args.out_dir, "random_seq2seq.jsonl"), seq2seq)
    write_lines(os.path.join(args.out_dir, "random_lm.jsonl"), lm)
    print(f"make_random_tokens: {len(seq2seq)} seq2seq and {len(lm)} lm examples, vocab {VOCAB} -> {args.out_dir}")


if __name__ == "__main__":
    main()
