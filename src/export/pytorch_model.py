"""A tapeformer model rebuilt with torch.nn, written by `tapeformer export --to pytorch`.

The math of each model, and every parameter's name and shape, is in tapeformer's docs/models.md.
Beside this file: config.json (the run's model section and its vocabulary size), model.safetensors
(the weights under the names of the torch.nn modules below), vocab.json (the run's vocabulary, as
tapeformer saved it) and check.safetensors (token sequences drawn from the vocabulary and the
logits tapeformer computed for them).

    python3 model.py                     compare the logits with tapeformer's
    python3 model.py --decode "some text" greedy decoding: the seq2seq model's output, or the
                                         language model's continuation (--max-length N tokens)
    from model import load, encode, decode, greedy_decode
        load(folder)            the torch.nn.Module, in eval mode
        encode(text)            token ids of text, as tapeformer's tokenizer gives them
        decode(ids)             the text of token ids (stops at <eos>, skips <pad> and <bos>)
        greedy_decode(text, max_length)   the argmax token at every step, as text

Only torch and Python's standard library are needed.
"""
import argparse
import json
import math
import os
import struct
import sys

NEEDS_TORCH = "model.py needs PyTorch: on Debian, apt-get install python3-torch"
try:
    import torch
    from torch import nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
except ImportError:
    if __name__ == "__main__":
        print(NEEDS_TORCH, file=sys.stderr)
        sys.exit(2)
    raise ImportError(NEEDS_TORCH) from None

FOLDER = os.path.dirname(os.path.abspath(__file__))

# The special tokens sit at these ids in every tapeformer vocabulary; ordinary tokens follow.
PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = [b"<pad>", b"<bos>", b"<eos>", b"<unk>"]


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


# The vocabulary: tapeformer's tokenizers (src/datasets/tokenizer.cpp, src/datasets/bpe.cpp) on the bytes
# of the text, so every id comes out as tapeformer's. Text goes in and out as str; bytes that are
# not UTF-8 travel as surrogate escapes, so decode(encode(text)) gives back any text bpe and char
# tokenizers can spell.


def utf8_length(lead):
    """The byte length of the UTF-8 sequence that starts with `lead` (1 for a malformed lead byte)."""
    if lead < 0x80:
        return 1
    if lead >> 5 == 0x6:
        return 2
    if lead >> 4 == 0xE:
        return 3
    if lead >> 3 == 0x1E:
        return 4
    return 1


def split_chars(data):
    """"char": the UTF-8 code points of the text; a malformed byte is a token of its own."""
    tokens, i = [], 0
    while i < len(data):
        length = utf8_length(data[i])
        if i + length > len(data) or any(data[i + k] >> 6 != 0x2 for k in range(1, length)):
            length = 1
        tokens.append(data[i:i + length])
        i += length
    return tokens


def is_word_byte(byte):
    return byte >= 0x80 or bytes([byte]).isalnum()


def split_words(data):
    """"word": runs of letters, digits and non-ASCII bytes (an apostrophe or hyphen between word
    characters stays inside: "don't"); '\n' is a token, other whitespace is dropped; any other
    character is a token, and so is a run of one (".."), except quotes and brackets."""
    tokens, word, i = [], b"", 0
    while i < len(data):
        c = data[i]
        joiner = c in b"'-" and word and i + 1 < len(data) and is_word_byte(data[i + 1])
        if is_word_byte(c) or joiner:
            word += bytes([c])
            i += 1
            continue
        if word:
            tokens.append(word)
            word = b""
        if c == ord("\n"):
            tokens.append(b"\n")
        elif c not in b" \t\r\v\f":
            mark = bytes([c])
            while c not in b"\"'()[]{}" and i + 1 < len(data) and data[i + 1] == c:
                mark += bytes([c])
                i += 1
            tokens.append(mark)
        i += 1
    if word:
        tokens.append(word)
    return tokens


def join_words(tokens):
    """The inverse of split_words on ordinary text: one space between tokens, none before . , ; : ! ? ) ] }
    nor after ( [ {; straight quotes alternate opening and closing; none around '\n'."""
    text, glue_next, open_quote = b"", True, {b'"': False, b"'": False}
    for token in tokens:
        space, glue_after = not glue_next, False
        if token == b"\n":
            space, glue_after = False, True
        elif token and all(c in b".,;:!?)]}" for c in token):
            space = False
        elif token and all(c in b"([{" for c in token):
            glue_after = True
        elif token in open_quote:
            if open_quote[token]:
                space = False  # a closing quote hugs the word before it
            else:
                glue_after = True  # an opening quote hugs the word after it
            open_quote[token] = not open_quote[token]
        text += (b" " if space else b"") + token
        glue_next = glue_after
    return text


def bpe_chunks(data):
    """Byte-pair merges never cross a chunk: a run of whitespace and the run of other bytes after it."""
    chunks, chunk, in_word = [], b"", False
    for byte in data:
        space = byte in b" \t\n\r\v\f"
        if space and in_word:
            chunks.append(chunk)
            chunk, in_word = b"", False
        in_word = in_word or not space
        chunk += bytes([byte])
    return chunks + [chunk] if chunk else chunks


class Vocabulary:
    """vocab.json: {"kind": "char"|"word", "tokens": [...]}, {"kind": "bpe", "merges": [[left, right], ...]}
    (byte b is id 4 + b, merge k makes id 4 + 256 + k) or {"kind": "ids", "vocab_size": N}."""

    def __init__(self, saved):
        self.kind = saved["kind"]
        if self.kind == "ids":
            self.size = saved["vocab_size"]
            return
        if self.kind == "bpe":
            self.tokens = SPECIALS + [bytes([byte]) for byte in range(256)]
            self.merges = [tuple(pair) for pair in saved["merges"]]
            self.rank = {pair: k for k, pair in enumerate(self.merges)}  # earlier merges apply first
            for left, right in self.merges:
                self.tokens.append(self.tokens[left] + self.tokens[right])
        else:
            self.tokens = [token.encode("utf-8", "surrogateescape") for token in saved["tokens"]]
        self.ids = {}
        for i, token in enumerate(self.tokens):
            self.ids.setdefault(token, i)
        self.size = len(self.tokens)

    def encode(self, text):
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
        if self.kind == "bpe":
            return [i for chunk in bpe_chunks(data) for i in self.encode_chunk(chunk)]
        if self.kind == "ids":
            return [int(n) if n.isdigit() and len(n) < 19 and int(n) < self.size else UNK for n in data.split()]
        tokens = split_words(data) if self.kind == "word" else split_chars(data)
        return [self.ids.get(token, UNK) for token in tokens]

    def encode_chunk(self, chunk):
        """Replays the merges: while some adjacent pair was learned, merge the earliest learned one
        everywhere, left to right."""
        ids = [len(SPECIALS) + byte for byte in chunk]
        while len(ids) > 1:
            ranked = [self.rank[pair] for pair in zip(ids, ids[1:]) if pair in self.rank]
            if not ranked:
                break
            earliest = min(ranked)
            pair, merged, i = self.merges[earliest], [], 0
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    merged.append(len(SPECIALS) + 256 + earliest)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        return ids

    def decode(self, ids):
        tokens = []
        for i in ids:
            if i == EOS:
                break
            if i in (PAD, BOS):
                continue
            if self.kind == "ids":
                tokens.append(str(i).encode())
            else:
                tokens.append(self.tokens[i] if 0 <= i < self.size else self.tokens[UNK])
        if self.kind == "word":
            data = join_words(tokens)
        else:
            data = (b" " if self.kind == "ids" else b"").join(tokens)
        return data.decode("utf-8", "surrogateescape")


def load_vocabulary(folder):
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8", errors="surrogateescape") as file:
        return Vocabulary(json.load(file))


_loaded = {}  # folder → (model, vocabulary, config), read once


def exported(folder=FOLDER):
    if folder not in _loaded:
        with open(os.path.join(folder, "config.json")) as file:
            config = json.load(file)
        _loaded[folder] = (load(folder), load_vocabulary(folder), config)
    return _loaded[folder]


def encode(text, folder=FOLDER):
    """The token ids of `text` under the run's vocabulary (no <bos>, no <eos>)."""
    return exported(folder)[1].encode(text)


def decode(ids, folder=FOLDER):
    """The text of `ids`: up to the first <eos>, without <pad> and <bos>."""
    return exported(folder)[1].decode(ids)


def greedy_decode(text, max_length=128, folder=FOLDER):
    """Greedy decoding over the model's forward (no cache: each step reruns the whole prefix).
    seq2seq: the output for `text`, the decoder starting from <bos>; language model: the continuation
    of `text` after <bos> + text. At each step the argmax token (the first of equal ones) until <eos>
    or max_length tokens, capped where a transformer runs out of positions (model.max_length)."""
    model, vocabulary, config = exported(folder)
    ids = vocabulary.encode(text)
    if not ids:
        raise ValueError("greedy_decode: the input is empty (the vocabulary finds no token in it)")
    section = config["model"]
    positions = section.get("max_length") if section["type"] != "rnn_seq2seq" else None
    language_model = section["type"] == "lm"
    if language_model:
        src, prefix = None, [BOS] + ids
        limit = min(max_length, positions - len(ids))
    else:
        src, prefix = torch.tensor([ids]), [BOS]
        limit = max_length if positions is None else min(max_length, positions)
    if positions is not None and len(prefix) > positions or limit < 1:
        raise ValueError(f"greedy_decode: {len(ids)} tokens leave no room in the model's {positions} positions")
    generated = []
    with torch.no_grad():
        for _ in range(limit):
            token = int(model(src, torch.tensor([prefix]))[0, -1].argmax())
            if token == EOS:
                break
            generated.append(token)
            prefix.append(token)
    return vocabulary.decode(generated)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The exported tapeformer model: check its logits, or decode text.")
    parser.add_argument("--decode", metavar="TEXT", help="greedy decoding of TEXT instead of the logit check")
    parser.add_argument("--max-length", type=int, default=128, help="tokens to generate at most (default 128)")
    arguments = parser.parse_args()
    if arguments.decode is not None:
        output = greedy_decode(arguments.decode, arguments.max_length)   # argv's undecodable bytes: surrogate escapes
        sys.stdout.buffer.write(output.encode("utf-8", "surrogateescape") + b"\n")
        sys.exit(0)
    largest, positions, count = check(FOLDER)
    print(f"{positions} target positions of {count} check inputs: largest |logit - tapeformer's| = {largest:.3g}")
    sys.exit(0 if largest <= 1e-4 else 1)
