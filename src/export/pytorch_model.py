"""A tapeformer model rebuilt with torch.nn, written by `tapeformer export --to pytorch`.

The math of each model, and every parameter's name and shape, is in tapeformer's docs/models.md.
Beside this file: config.json (the run's model section and its vocabulary size), model.safetensors
(the weights under the names of the torch.nn modules below) and check.safetensors (token
sequences drawn from the vocabulary and the logits tapeformer computed for them).

    python3 model.py         rebuild the model, load the weights, compare the logits with tapeformer's
    from model import load   load(folder) gives the torch.nn.Module, in eval mode

Only torch and Python's standard library are needed.
"""
import json
import math
import os
import struct
import sys

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD = 0  # token id 0 is <pad> in every tapeformer vocabulary


def read_safetensors(path):
    """The tensors of a .safetensors file: an 8-byte little-endian header length, a JSON header
    giving each tensor's dtype, shape and byte range, then the bytes."""
    with open(path, "rb") as file:
        header_length = struct.unpack("<Q", file.read(8))[0]
        header = json.loads(file.read(header_length))
        data = file.read()
    dtypes = {"F32": torch.float32, "F64": torch.float64}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(data[start:end]), dtype=dtypes[entry["dtype"]])
        tensors[name] = flat.reshape(entry["shape"]).clone()
    return tensors


def sinusoidal_table(length, width):
    """P(p, 2i) = sin(p·ω_i), P(p, 2i+1) = cos(p·ω_i), ω_i = exp(−2i·ln 10000 / C): in double, then float."""
    position = torch.arange(length, dtype=torch.float64)[:, None]
    pair = torch.arange(width, dtype=torch.float64) // 2
    angle = position * torch.exp(-2 * pair * math.log(10000.0) / width)
    table = torch.where(torch.arange(width) % 2 == 0, torch.sin(angle), torch.cos(angle))
    return table.float()


class Embed(nn.Module):
    """Token embedding (·√C when scale_embeddings) plus positions, learned or sinusoidal."""

    def __init__(self, vocab, config):
        super().__init__()
        width = config["d_model"]
        self.token = nn.Embedding(vocab, width, padding_idx=PAD)
        self.scale = math.sqrt(width) if config["scale_embeddings"] else 1.0
        if config["positions"] == "learned":
            self.positions = nn.Embedding(config["max_length"], width)
        else:
            self.register_buffer("table", sinusoidal_table(config["max_length"], width), persistent=False)
            self.positions = None

    def forward(self, ids):
        x = self.token(ids) * self.scale
        positions = self.positions.weight if self.positions is not None else self.table
        return x + positions[: ids.shape[1]]


def causal_mask(length):
    """−∞ above the diagonal: position t attends to positions ≤ t."""
    return torch.triu(torch.full((length, length), float("-inf")), diagonal=1)


def final_norm(config):
    return nn.LayerNorm(config["d_model"]) if config["final_norm"] else None


def block(cls, config):
    return cls(config["d_model"], config["heads"], config["ffn_hidden"], dropout=0.0, activation=config["activation"],
               batch_first=True, norm_first=config["norm_first"])


class TransformerSeq2Seq(nn.Module):
    """model.type "transformer": an encoder and a decoder stack (nn.TransformerEncoder/Decoder)."""

    def __init__(self, vocab, config):
        super().__init__()
        self.src_embed = Embed(vocab, config)
        self.tgt_embed = Embed(vocab, config)
        self.encoder = nn.TransformerEncoder(block(nn.TransformerEncoderLayer, config), config["encoder_layers"],
                                             norm=final_norm(config), enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(block(nn.TransformerDecoderLayer, config), config["decoder_layers"],
                                             norm=final_norm(config))
        self.output = nn.Linear(config["d_model"], vocab)

    def forward(self, src, tgt_in):
        source_pad, target_pad = src == PAD, tgt_in == PAD
        memory = self.encoder(self.src_embed(src), src_key_padding_mask=source_pad)
        h = self.decoder(self.tgt_embed(tgt_in), memory, tgt_mask=causal_mask(tgt_in.shape[1]),
                         tgt_key_padding_mask=target_pad, memory_key_padding_mask=source_pad)
        return self.output(h)


class LocalConvMixer(nn.Module):
    """tapeformer's worked example layer (docs/extending.md), which torch.nn has no module for:
    u = LN(x); c_t = b_c + Σ_j w_j ⊙ u_{t−j} (depthwise, causal: u before the start is 0);
    [a; g] = c·W_inᵀ + b_in; y = x + (a ⊙ σ(g))·W_outᵀ + b_out."""

    def __init__(self, width, kernel_size):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.conv_weight = nn.Parameter(torch.zeros(kernel_size, width))  # row j weighs u_{t−j}
        self.conv_bias = nn.Parameter(torch.zeros(width))
        self.in_proj = nn.Linear(width, 2 * width)
        self.out_proj = nn.Linear(width, width)

    def forward(self, x):
        u = self.norm(x)
        length = x.shape[1]
        c = self.conv_bias.expand_as(u)
        for j in range(min(len(self.conv_weight), length)):
            shifted = torch.nn.functional.pad(u, (0, 0, j, 0))[:, :length]  # u_{t−j}, zeros in front
            c = c + shifted * self.conv_weight[j]
        a, g = self.in_proj(c).chunk(2, dim=-1)
        return x + self.out_proj(a * torch.sigmoid(g))


class BlockStack(nn.Module):
    """Registry blocks one after another, then the final LayerNorm: a stack with model.block set."""

    def __init__(self, layers, norm):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = norm

    def forward(self, x, mask=None, src_key_padding_mask=None):  # causal by construction: the masks are not needed
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) if self.norm is not None else x


class LanguageModel(nn.Module):
    """model.type "lm": one stack of causal self-attention blocks (GPT-2's layout with the defaults),
    or of the registry block model.block names."""

    def __init__(self, vocab, config):
        super().__init__()
        self.embed = Embed(vocab, config)
        if "block" in config:  # local_conv_mixer, the one registry block model.py has a module for
            mixers = [LocalConvMixer(config["d_model"], config["block"]["kernel_size"]) for _ in range(config["layers"])]
            self.blocks = BlockStack(mixers, final_norm(config))
        else:
            self.blocks = nn.TransformerEncoder(block(nn.TransformerEncoderLayer, config), config["layers"],
                                                norm=final_norm(config), enable_nested_tensor=False)
        self.output = nn.Linear(config["d_model"], vocab)

    def forward(self, src, tgt_in):
        h = self.blocks(self.embed(tgt_in), mask=causal_mask(tgt_in.shape[1]), src_key_padding_mask=tgt_in == PAD)
        return self.output(h)


class AdditiveAttention(nn.Module):
    """e_j = vᵀ tanh(W_k h_j + b_k + W_q s), softmax over the unpadded source positions (Bahdanau et al. 2015)."""

    def __init__(self, query_width, key_width, width):
        super().__init__()
        self.W_q = nn.Linear(query_width, width, bias=False)
        self.W_k = nn.Linear(key_width, width)
        self.v = nn.Linear(width, 1, bias=False)

    def forward(self, keys, query, source_pad):
        scores = self.v(torch.tanh(keys + self.W_q(query)[:, None, :])).squeeze(-1)
        return torch.softmax(scores.masked_fill(source_pad, float("-inf")), dim=1)


class RnnSeq2Seq(nn.Module):
    """model.type "rnn_seq2seq": nn.RNN/GRU/LSTM encoder; a recurrent decoder, or one decoder cell
    that reads [x_t; ctx_t] with additive attention over the encoder's outputs."""

    def __init__(self, vocab, config):
        super().__init__()
        E, H, layers, cell = config["embedding_size"], config["hidden_size"], config["num_layers"], config["cell"]
        self.cell, self.attending = cell, config["attention"] == "additive"
        self.src_embedding = nn.Embedding(vocab, E, padding_idx=PAD)
        self.tgt_embedding = nn.Embedding(vocab, E, padding_idx=PAD)
        layer = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell]
        self.encoder = layer(E, H, layers, batch_first=True)
        if self.attending:
            self.decoder_cell = {"rnn": nn.RNNCell, "gru": nn.GRUCell, "lstm": nn.LSTMCell}[cell](E + H, H)
            self.bridge = nn.Linear(H, H)
            self.attention = AdditiveAttention(H, H, H)
            self.output = nn.Linear(H + H + E, vocab)
        else:
            self.decoder = layer(E, H, layers, batch_first=True)
            self.output = nn.Linear(H, vocab)

    def forward(self, src, tgt_in):
        source_pad = src == PAD
        lengths = (~source_pad).sum(1).cpu()
        packed = pack_padded_sequence(self.src_embedding(src), lengths, batch_first=True, enforce_sorted=False)
        outputs, state = self.encoder(packed)  # each item's state after its last token
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.shape[1])
        x = self.tgt_embedding(tgt_in)
        if not self.attending:
            return self.output(self.decoder(x, state)[0])
        last = (state[0] if self.cell == "lstm" else state)[-1]  # the last layer's final state
        s = torch.tanh(self.bridge(last))
        c = torch.zeros_like(s)
        keys = self.attention.W_k(outputs)
        logits = []
        for t in range(tgt_in.shape[1]):
            weights = self.attention(keys, s, source_pad)
            context = (weights[:, :, None] * outputs).sum(1)
            step_input = torch.cat([x[:, t], context], dim=1)
            if self.cell == "lstm":
                s, c = self.decoder_cell(step_input, (s, c))
            else:
                s = self.decoder_cell(step_input, s)
            logits.append(self.output(torch.cat([s, context, x[:, t]], dim=1)))
        return torch.stack(logits, dim=1)


MODELS = {"transformer": TransformerSeq2Seq, "lm": LanguageModel, "rnn_seq2seq": RnnSeq2Seq}


def load(folder):
    """The exported model with its weights, in eval mode."""
    with open(os.path.join(folder, "config.json")) as file:
        config = json.load(file)
    model = MODELS[config["model"]["type"]](config["vocab_size"], config["model"])
    model.load_state_dict(read_safetensors(os.path.join(folder, "model.safetensors")))
    return model.eval()


def check(folder):
    """The largest |logit − tapeformer's| over the target positions of the exported check inputs."""
    model = load(folder)
    examples = read_safetensors(os.path.join(folder, "check.safetensors"))
    tgt_in = examples["tgt_in"].long()
    src = examples["src"].long() if "src" in examples else None
    with torch.no_grad():
        logits = model(src, tgt_in)
    kept = tgt_in != PAD
    largest = (logits - examples["logits"]).abs()[kept].max().item()
    return largest, int(kept.sum()), tgt_in.shape[0]


if __name__ == "__main__":
    folder = os.path.dirname(os.path.abspath(__file__))
    largest, positions, count = check(folder)
    print(f"{positions} target positions of {count} check inputs: largest |logit - tapeformer's| = {largest:.3g}")
    sys.exit(0 if largest <= 1e-4 else 1)
