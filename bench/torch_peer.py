#!/usr/bin/env python3
"""The PyTorch peer of `tapeformer bench`: the same workloads, measured the same way, in torch.nn.

  python3 bench/torch_peer.py train --workload W1 [--threads 2] [--warmup 5] [--steps 30]
  python3 bench/torch_peer.py decode [--threads 2] [--runs 7]
  python3 bench/torch_peer.py attention [--lengths 256 1024 4096] [--variant fused|composed] [--reps 3]
  python3 bench/torch_peer.py params                      # each workload's parameter count, no timing

Prints one JSON object per line (the fields of `tapeformer bench --json`, plus "impl": "torch"),
which bench/compare_torch.sh sets beside tapeformer's.

The workloads are the run configs configs/bench/w1.json ... w4.json (their `model` section, and
their `data` section's batch size and length; configs/bench/README.md describes each). They are
measured as src/analysis/machine/throughput.cpp measures them: 8 fixed batches of random ids in [2, 96),
Adam (lr 1e-3), one untimed step, `--warmup` steps, then `--steps` timed steps of zero_grad +
forward + cross-entropy + backward + Adam; tokens/s = B·T / the median step.
  seq2seq (W1-W3): src (B, T), decoder input <bos> + src[:, :-1], target src;
  lm (W4):         a (B, T+1) row of ids, input its first T, target its last T.
Decoding D: the W1 model, batch 1, a random 64-token source, 64 greedy tokens with no early stop,
re-running the decoder over the growing prefix (nn.TransformerDecoder keeps no key/value cache;
compare it with tapeformer's `decode.cache` "off").
Workload A: causal self-attention forward + backward alone, batch 1, 4 heads of width 64, Q, K, V
given (no projections), backward with a fixed random dO; one warm-up call, then the median of
`--reps` (src/analysis/machine/attention_scaling.h). "composed" writes the equation as ops (matmul, scale,
masked_fill with a causal mask built per call, softmax, matmul: tapeformer's "plain"); "fused" is
F.scaled_dot_product_attention(is_causal=True) (PyTorch 2.0 and later; compare it with "tiled").
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs", "bench")
VOCAB = 96        # every workload's vocabulary (configs/bench/*.json, data.vocab_size)
BOS = 1           # tapeformer's <bos> id; batches draw ids from [2, VOCAB)
BATCHES = 8       # fixed batches, cycled
WORKLOADS = ("W1", "W2", "W3", "W4")


def fail(message):
    print(f"torch_peer.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_workload(name):
    """A workload's config: its model section, the batch size B and the length T of a batch."""
    if name not in WORKLOADS:
        fail(f'unknown workload "{name}" (known: {", ".join(WORKLOADS)})')
    with open(os.path.join(CONFIG_DIR, name.lower() + ".json"), encoding="utf-8") as file:
        config = json.load(file)
    data = config["data"]
    if data["vocab_size"] != VOCAB:
        fail(f"{name}: data.vocab_size is {data['vocab_size']}, the peer is built for {VOCAB}")
    # Batching prepends <bos> to a language model's input, so its rows are one longer than the
    # stored lines; a seq2seq source is stored at its full length (configs/bench/README.md).
    length = data["max_length"] + 1 if data["task"] == "lm" else data["max_length"]
    return config["model"], data["batch_size"], length


# P(p, 2i) = sin(p·ω_i), P(p, 2i+1) = cos(p·ω_i), ω_i = 10000^(-2i/C)   (docs/models.md)
def sinusoidal_table(length, width):
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    frequency = torch.exp(torch.arange(0, width, 2, dtype=torch.float32) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


# M[i, j] = -inf where key j is after query i, 0 elsewhere.
def causal_mask(length):
    return torch.triu(torch.full((length, length), float("-inf")), diagonal=1)


# Module names follow docs/models.md, whose tables map every tapeformer parameter onto these.
class TransformerAE(nn.Module):
    """W1: nn.Transformer encoder-decoder; x = embedding·√C + P (scale_embeddings, sinusoidal)."""

    def __init__(self, model, max_length):
        super().__init__()
        if model["positions"] != "sinusoidal" or not model["scale_embeddings"] or not model["final_norm"]:
            fail("W1's peer is nn.Transformer: sinusoidal positions, scaled embeddings and final norms")
        width = model["d_model"]
        self.scale = math.sqrt(width)
        self.src_emb = nn.Embedding(VOCAB, width)
        self.tgt_emb = nn.Embedding(VOCAB, width)
        self.register_buffer("pe", sinusoidal_table(max_length, width))
        # nn.Transformer ends its encoder and decoder stacks with a LayerNorm each: final_norm.
        self.tf = nn.Transformer(
            d_model=width, nhead=model["heads"], num_encoder_layers=model["encoder_layers"],
            num_decoder_layers=model["decoder_layers"], dim_feedforward=model["ffn_hidden"],
            dropout=model["dropout"], activation=model["activation"], batch_first=True,
            norm_first=model["norm_first"])
        self.out = nn.Linear(width, VOCAB)

    def embed(self, embedding, ids):
        return embedding(ids) * self.scale + self.pe[: ids.shape[1]]

    def encode(self, src):
        return self.tf.encoder(self.embed(self.src_emb, src))

    def decode(self, memory, tgt_in):
        mask = causal_mask(tgt_in.shape[1])
        return self.out(self.tf.decoder(self.embed(self.tgt_emb, tgt_in), memory, tgt_mask=mask))

    def forward(self, src, tgt_in):
        return self.decode(self.encode(src), tgt_in)


def check_one_layer(model, cell, attention):
    if model["cell"] != cell or model["attention"] != attention:
        fail(f"no peer for cell {model['cell']} with attention {model['attention']}")
    if model["num_layers"] != 1 or model["bidirectional_encoder"]:
        fail("the recurrent peers have one unidirectional layer")


class BahdanauGRU(nn.Module):
    """W2, docs/math/recurrent.md: s_0 = tanh(W_init h_S + b_init);
    e_tj = vᵀ tanh(W_k h_j + b_k + W_q s_(t-1)); c_t = Σ_j softmax_j(e_t) h_j;
    s_t = GRU([x_t; c_t], s_(t-1)); logits_t = W_o [s_t; c_t; x_t] + b_o."""

    def __init__(self, model):
        super().__init__()
        check_one_layer(model, "gru", "additive")
        embedding, hidden = model["embedding_size"], model["hidden_size"]
        self.src_emb = nn.Embedding(VOCAB, embedding)
        self.tgt_emb = nn.Embedding(VOCAB, embedding)
        self.enc = nn.GRU(embedding, hidden, batch_first=True)
        self.W_a = nn.Linear(hidden, hidden, bias=False)   # W_q, on the decoder state
        self.U_a = nn.Linear(hidden, hidden)               # W_k, b_k, on the encoder states, once
        self.v_a = nn.Linear(hidden, 1, bias=False)        # v
        self.cell = nn.GRUCell(embedding + hidden, hidden)
        self.init = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden + hidden + embedding, VOCAB)

    def forward(self, src, tgt_in):
        states, final = self.enc(self.src_emb(src))  # (B, S, H), (1, B, H)
        keys = self.U_a(states)
        state = torch.tanh(self.init(final[0]))
        inputs = self.tgt_emb(tgt_in)                # (B, T, E)
        steps = []
        for t in range(tgt_in.shape[1]):
            energies = self.v_a(torch.tanh(keys + self.W_a(state).unsqueeze(1))).squeeze(2)  # (B, S)
            context = torch.bmm(torch.softmax(energies, dim=1).unsqueeze(1), states).squeeze(1)  # (B, H)
            x = inputs[:, t]
            state = self.cell(torch.cat([x, context], dim=1), state)
            steps.append(torch.cat([state, context, x], dim=1))
        return self.out(torch.stack(steps, dim=1))


class VanillaRNN(nn.Module):
    """W3: tanh RNN encoder; the decoder starts from its final state; logits_t = W_o s_t + b_o."""

    def __init__(self, model):
        super().__init__()
        check_one_layer(model, "rnn", "none")
        embedding, hidden = model["embedding_size"], model["hidden_size"]
        self.src_emb = nn.Embedding(VOCAB, embedding)
        self.tgt_emb = nn.Embedding(VOCAB, embedding)
        self.enc = nn.RNN(embedding, hidden, nonlinearity="tanh", batch_first=True)
        self.dec = nn.RNN(embedding, hidden, nonlinearity="tanh", batch_first=True)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, src, tgt_in):
        _, final = self.enc(self.src_emb(src))
        outputs, _ = self.dec(self.tgt_emb(tgt_in), final)
        return self.out(outputs)


class GPT(nn.Module):
    """W4: x = embedding + learned position; pre-LN blocks with a causal mask; final LayerNorm."""

    def __init__(self, model):
        super().__init__()
        if model["positions"] != "learned" or model["scale_embeddings"] or not model["final_norm"]:
            fail("W4's peer has learned positions, unscaled embeddings and a final norm")
        width = model["d_model"]
        self.tok = nn.Embedding(VOCAB, width)
        self.pos = nn.Embedding(model["max_length"], width)
        block = nn.TransformerEncoderLayer(width, model["heads"], model["ffn_hidden"], dropout=model["dropout"],
                                           activation=model["activation"], batch_first=True,
                                           norm_first=model["norm_first"])
        self.blocks = nn.TransformerEncoder(block, model["layers"], enable_nested_tensor=False)
        self.ln = nn.LayerNorm(width)
        self.out = nn.Linear(width, VOCAB)

    def forward(self, ids):
        length = ids.shape[1]
        hidden = self.tok(ids) + self.pos(torch.arange(length))
        return self.out(self.ln(self.blocks(hidden, mask=causal_mask(length))))


def build_model(model, length):
    if model["type"] == "transformer":
        return TransformerAE(model, max(model["max_length"], length))
    if model["type"] == "rnn_seq2seq":
        return BahdanauGRU(model) if model["attention"] == "additive" else VanillaRNN(model)
    if model["type"] == "lm":
        return GPT(model)
    fail(f"no peer for model type {model['type']}")


def random_batches(language_model, batch, length, generator):
    batches = []
    for _ in range(BATCHES):
        if language_model:
            row = torch.randint(2, VOCAB, (batch, length + 1), generator=generator)
            batches.append(((row[:, :-1].contiguous(),), row[:, 1:].contiguous()))
        else:
            src = torch.randint(2, VOCAB, (batch, length), generator=generator)
            tgt_in = torch.cat([torch.full((batch, 1), BOS), src[:, :-1]], dim=1)
            batches.append(((src, tgt_in), src))
    return batches


def train_step(model, optimizer, batch):
    inputs, targets = batch
    optimizer.zero_grad(set_to_none=True)
    logits = model(*inputs)  # (B, T, V)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
    loss.backward()
    optimizer.step()
    return loss.item()


def timing(seconds):
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}


def measure_training(name, warmup, steps):
    model_config, batch, length = load_workload(name)
    torch.manual_seed(0)
    model = build_model(model_config, length)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = random_batches(model_config["type"] == "lm", batch, length, torch.Generator().manual_seed(1))
    loss_first = train_step(model, optimizer, batches[0])  # untimed, as tapeformer's FLOP-counting step
    for i in range(warmup):
        train_step(model, optimizer, batches[(i + 1) % BATCHES])
    seconds, loss_last = [], loss_first
    for i in range(steps):
        start = time.perf_counter()
        loss_last = train_step(model, optimizer, batches[i % BATCHES])
        seconds.append(time.perf_counter() - start)
    step = timing(seconds)
    return {"kind": "train", "workload": name, "batch": batch, "seq": length,
            "params": sum(p.numel() for p in model.parameters()), "step_s": step,
            "tokens_per_s": batch * length / step["median"], "loss_first": loss_first, "loss_last": loss_last}


@torch.no_grad()
def measure_decoding(runs, generated=64):
    model_config, _, length = load_workload("W1")
    torch.manual_seed(0)
    model = build_model(model_config, length + generated)
    model.eval()
    source = torch.randint(2, VOCAB, (1, length), generator=torch.Generator().manual_seed(1))

    def decode_once():
        memory = model.encode(source)
        prefix = torch.full((1, 1), BOS, dtype=torch.long)
        for _ in range(generated):
            next_id = model.decode(memory, prefix)[:, -1].argmax(-1, keepdim=True)
            prefix = torch.cat([prefix, next_id], dim=1)

    for _ in range(2):
        decode_once()
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        decode_once()
        seconds.append(time.perf_counter() - start)
    run = timing(seconds)
    return {"kind": "decode", "workload": "W1", "mode": "greedy_decode_batch1", "src_len": length,
            "gen_tokens": generated, "cache": "off", "step_s": run, "tokens_per_s": generated / run["median"]}


def fused_available():
    return hasattr(F, "scaled_dot_product_attention")


def measure_attention(length, variant, reps, heads=4, head_dim=64):
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, heads, length, head_dim, requires_grad=True) for _ in range(3))
    d_out = torch.randn(1, heads, length, head_dim)

    # O = softmax(Q·Kᵀ/√D + M)·V, then the backward from dO.
    def composed():
        mask = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return torch.matmul(weights, v)

    def fused():
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    attend = fused if variant == "fused" else composed

    def call():
        q.grad = k.grad = v.grad = None
        attend().backward(d_out)

    call()
    milliseconds = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        milliseconds.append((time.perf_counter() - start) * 1e3)
    return {"kind": "attention", "variant": variant, "T": length, "heads": heads, "head_dim": head_dim,
            "ms": statistics.median(milliseconds), "ms_min": min(milliseconds), "ms_max": max(milliseconds)}


def loaded_blas():
    """The BLAS libraries this process mapped. Debian's python3-torch calls whichever libblas.so.3
    the alternatives system points at; the reference one (in .../blas/) multiplies matrices about a
    hundred times slower than an optimised BLAS. A torch with MKL built in maps none."""
    torch.ones(8, 8) @ torch.ones(8, 8)
    with open("/proc/self/maps", encoding="utf-8") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line or "mkl" in line}
    return sorted(path for path in paths if path.startswith("/"))


def emit(record, threads):
    record.update({"impl": "torch", "torch": torch.__version__, "blas": loaded_blas(), "threads": threads,
                   "precision": "fp32"})
    print(json.dumps(record), flush=True)


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=positive, default=2, help="torch.set_num_threads (2)")
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="training throughput of W1-W4")
    train.add_argument("--workload", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    train.add_argument("--warmup", type=int, default=5)
    train.add_argument("--steps", type=positive, default=30)
    decode = commands.add_parser("decode", help="greedy decoding D (W1, batch 1, 64 tokens)")
    decode.add_argument("--runs", type=positive, default=7)
    attention = commands.add_parser("attention", help="workload A: causal attention forward + backward")
    attention.add_argument("--lengths", type=positive, nargs="+", default=[256, 1024, 4096])
    attention.add_argument("--variant", choices=["fused", "composed"],
                           default="fused" if fused_available() else "composed")
    attention.add_argument("--reps", type=positive, default=3)
    commands.add_parser("params", help="each workload's parameter count")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    if args.command == "train":
        for name in args.workload:
            emit(measure_training(name, args.warmup, args.steps), args.threads)
    elif args.command == "decode":
        emit(measure_decoding(args.runs), args.threads)
    elif args.command == "attention":
        if args.variant == "fused" and not fused_available():
            fail(f"PyTorch {torch.__version__} has no scaled_dot_product_attention: use --variant composed")
        for length in args.lengths:
            emit(measure_attention(length, args.variant, args.reps), args.threads)
    else:
        for name in WORKLOADS:
            model_config, _, length = load_workload(name)
            model = build_model(model_config, length)
            emit({"kind": "params", "workload": name, "params": sum(p.numel() for p in model.parameters())},
                 args.threads)


if __name__ == "__main__":
    main()
