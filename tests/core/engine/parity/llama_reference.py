#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine's Llama-style decoder, written independently in plain PyTorch.

This is the other side of the engine's parity test: the C++ engine writes its
weights and a batch, this script rebuilds the model the way PyTorch users write
it (nn.Module, nn.Linear, complex-number RoPE as in Meta's Llama code, an
expand-based repeat of the KV heads, F.cross_entropy) and writes the logits,
the loss and every gradient back. It shares no code with the engine, so a
mistake in either shows up as a difference.

Tensors travel as a "bundle": NAME.json (config and a table of tensors) plus
NAME.bin (their raw little-endian bytes). The .json is written last and
atomically, so a reader never sees a half-written bundle.

Exit codes: 0 done, 2 bad input (message names it), 3 PyTorch is missing.
"""
import argparse
import json
import math
import os
import sys

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
except ImportError as missing:
    print(f"llama_reference.py: cannot import torch with {sys.executable} ({missing}); "
          "install Debian's python3-torch", file=sys.stderr)
    sys.exit(3)

NORM_EPS = 1e-5
DTYPES = {"float32": torch.float32, "int64": torch.int64}


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + NORM_EPS) * self.weight


def rotary_factors(head_dim, seq, theta):
    """e^(i·pos·theta^(-2j/head_dim)) as complex64 [seq, head_dim/2]; angles in float64."""
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim
    angles = torch.outer(torch.arange(seq, dtype=torch.float64), theta ** -exponents)
    return torch.polar(torch.ones_like(angles), angles).to(torch.complex64)


def apply_rotary(x, factors):
    """Rotates consecutive pairs (2j, 2j+1) of x [B, T, H, hd] as complex numbers."""
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    rotated = pairs * factors[: x.shape[1]].unsqueeze(0).unsqueeze(2)
    return torch.view_as_real(rotated).flatten(3).type_as(x)


def repeat_kv(x, times):
    """[B, T, KV, hd] -> [B, T, KV·times, hd]; query head h reads KV head h // times."""
    batch, seq, kv_heads, head_dim = x.shape
    if times == 1:
        return x
    return x[:, :, :, None, :].expand(batch, seq, kv_heads, times, head_dim).reshape(
        batch, seq, kv_heads * times, head_dim)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads = cfg["heads"]
        self.kv_heads = cfg["kv_heads"]
        self.head_dim = cfg["dim"] // cfg["heads"]
        bias = cfg["qkv_bias"]
        self.wq = nn.Linear(cfg["dim"], self.heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(cfg["dim"], self.kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(cfg["dim"], self.kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(self.heads * self.head_dim, cfg["dim"], bias=False)

    def forward(self, x, factors):
        batch, seq, _ = x.shape
        q = self.wq(x).view(batch, seq, self.heads, self.head_dim)
        k = self.wk(x).view(batch, seq, self.kv_heads, self.head_dim)
        v = self.wv(x).view(batch, seq, self.kv_heads, self.head_dim)
        q, k = apply_rotary(q, factors), apply_rotary(k, factors)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        mask = torch.full((seq, seq), float("-inf")).triu(1)
        probabilities = F.softmax(scores + mask, dim=-1)
        out = torch.matmul(probabilities, v).transpose(1, 2).reshape(batch, seq, -1)
        return self.wo(out)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.w1 = nn.Linear(cfg["dim"], cfg["ffn"], bias=False)
        self.w2 = nn.Linear(cfg["ffn"], cfg["dim"], bias=False)
        self.w3 = nn.Linear(cfg["dim"], cfg["ffn"], bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention_norm = RMSNorm(cfg["dim"])
        self.attention = Attention(cfg)
        self.ffn_norm = RMSNorm(cfg["dim"])
        self.feed_forward = FeedForward(cfg)

    def forward(self, x, factors):
        h = x + self.attention(self.attention_norm(x), factors)
        return h + self.feed_forward(self.ffn_norm(h))


class Llama(nn.Module):
    """The decoder; its parameter names map one to one onto the engine's."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embedding = nn.Embedding(cfg["vocab"], cfg["dim"])
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg["layers"]))
        self.norm = RMSNorm(cfg["dim"])
        self.output = nn.Linear(cfg["dim"], cfg["vocab"], bias=False)
        self.register_buffer("factors", rotary_factors(
            cfg["dim"] // cfg["heads"], cfg["seq"], cfg["rope_theta"]), persistent=False)

    def forward(self, tokens):
        x = self.embedding(tokens)
        for layer in self.layers:
            x = layer(x, self.factors)
        return self.output(self.norm(x))

    def loss(self, rows):
        """Mean next-token cross-entropy of rows [B, T+1]; returns (logits, loss)."""
        logits = self(rows[:, :-1])
        return logits, F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                       rows[:, 1:].reshape(-1))


def engine_name(module_name):
    """Module parameter name -> the engine's checkpoint name."""
    name = module_name.replace(".weight", "")
    for projection in ("wq", "wk", "wv"):
        name = name.replace(f"attention.{projection}.bias", f"attention.b{projection[1]}")
    return name


def read_bundle(directory, stem):
    manifest_path = os.path.join(directory, stem + ".json")
    try:
        with open(manifest_path, encoding="utf-8") as handle:
            manifest = json.load(handle)
        with open(os.path.join(directory, stem + ".bin"), "rb") as handle:
            blob = handle.read()
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read bundle {manifest_path}: {error}") from error
    tensors = {}
    for entry in manifest["tensors"]:
        if entry["dtype"] not in DTYPES:
            raise ValueError(f"tensor {entry['name']} has unknown dtype {entry['dtype']}")
        dtype = DTYPES[entry["dtype"]]
        count = math.prod(entry["shape"])
        size = count * torch.empty((), dtype=dtype).element_size()
        if entry["offset"] + size > len(blob):
            raise ValueError(f"tensor {entry['name']} runs past the end of {stem}.bin")
        chunk = bytearray(blob[entry["offset"]:entry["offset"] + size])
        tensors[entry["name"]] = torch.frombuffer(chunk, dtype=dtype).reshape(entry["shape"])
    return manifest.get("config", {}), tensors


def write_bundle(directory, stem, tensors):
    entries, chunks, offset = [], [], 0
    for name, tensor in tensors.items():
        data = tensor.detach().contiguous().to(torch.float32).numpy().tobytes()
        entries.append({"name": name, "dtype": "float32", "shape": list(tensor.shape),
                        "offset": offset})
        chunks.append(data)
        offset += len(data)
    for suffix, payload in ((".bin", b"".join(chunks)),
                            (".json", json.dumps({"tensors": entries}).encode("utf-8"))):
        path = os.path.join(directory, stem + suffix)
        with open(path + ".tmp", "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(path + ".tmp", path)


def build_model(cfg, weights):
    model = Llama(cfg)
    parameters = dict(model.named_parameters())
    expected = {engine_name(name) for name in parameters}
    if set(weights) - {"rows"} != expected:
        missing = sorted(expected - set(weights))
        extra = sorted(set(weights) - expected - {"rows"})
        raise ValueError(f"weights do not match the model: missing {missing}, unexpected {extra}")
    with torch.no_grad():
        for name, parameter in parameters.items():
            source = weights[engine_name(name)]
            if source.shape != parameter.shape:
                raise ValueError(f"{engine_name(name)} has shape {list(source.shape)}, "
                                 f"the model needs {list(parameter.shape)}")
            parameter.copy_(source)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="folder holding the inputs bundle")
    parser.add_argument("--inputs", default="inputs", help="bundle stem of weights and rows")
    parser.add_argument("--outputs", default="reference", help="bundle stem to write")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    try:
        cfg, tensors = read_bundle(args.dir, args.inputs)
        missing = [key for key in ("vocab", "dim", "layers", "heads", "kv_heads", "ffn", "seq",
                                   "rope_theta", "qkv_bias") if key not in cfg]
        if missing:
            raise ValueError(f"config of {args.inputs}.json lacks {missing}")
        if "rows" not in tensors:
            raise ValueError(f"{args.inputs}.json has no tensor 'rows'")
        model = build_model(cfg, tensors)
    except (ValueError, KeyError) as error:
        print(f"llama_reference.py: {error}", file=sys.stderr)
        return 2
    logits, loss = model.loss(tensors["rows"])
    loss.backward()
    outputs = {"logits": logits, "loss": loss.reshape(1)}
    for name, parameter in model.named_parameters():
        outputs["grad." + engine_name(name)] = parameter.grad
    write_bundle(args.dir, args.outputs, outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
