#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine's GPU opponent: the parity test's PyTorch model, trained on the
GPU machine's own PyTorch, in the forms people run it, on the same shapes.

  fp32-eager      the parity reference as written (eager attention), fp32
  bf16-sdpa       bf16 autocast, scaled_dot_product_attention (flash kernels)
  bf16-compiled   the same under torch.compile

AdamW (fused where PyTorch has it) on random tokens, as the engine's
`--data random`. Prints one JSON document: each form's median step time,
tokens/s and peak allocated bytes, and the fp32 and bf16 matrix-product rates
measured in the same process (the denominators of MFU).

Exit codes: 0 done, 1 a form failed (the others are still reported), 3 no
CUDA device or no torch.
"""
import argparse
import json
import os
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as missing:
    print(f"torch_reference.py: cannot import torch ({missing})", file=sys.stderr)
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core", "engine", "parity"))
import llama_reference as ref  # noqa: E402  (the parity test's model, shared on purpose)

ORIGINAL_FORWARD = ref.Attention.forward


def sdpa_forward(self, x, factors):
    """ref.Attention.forward with PyTorch's fused attention in place of the s² matmuls."""
    batch, seq, _ = x.shape
    q = self.wq(x).view(batch, seq, self.heads, self.head_dim)
    k = self.wk(x).view(batch, seq, self.kv_heads, self.head_dim)
    v = self.wv(x).view(batch, seq, self.kv_heads, self.head_dim)
    q, k = ref.apply_rotary(q, factors), ref.apply_rotary(k, factors)
    k = ref.repeat_kv(k, self.heads // self.kv_heads)
    v = ref.repeat_kv(v, self.heads // self.kv_heads)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return self.wo(out.transpose(1, 2).reshape(batch, seq, -1))


def matmul_tflops(dtype, size=8192, repeats=20):
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    torch.cuda.synchronize()
    return 2.0 * size ** 3 * repeats / (time.perf_counter() - start) / 1e12


def train(cfg, form, steps, warmup):
    torch.manual_seed(1234)
    ref.Attention.forward = ORIGINAL_FORWARD if form == "fp32-eager" else sdpa_forward
    model = ref.Llama(cfg).cuda()
    step_fn = model.loss
    if form == "bf16-compiled":
        step_fn = torch.compile(model.loss)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    rows = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"] + 1), device="cuda")
    torch.cuda.reset_peak_memory_stats()
    times, losses = [], []
    for _ in range(steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=form != "fp32-eager"):
            _, loss = step_fn(rows)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        losses.append(loss.item())
    measured = times[warmup:]
    step = statistics.median(measured)
    return {"form": form, "step_time_s": step, "tokens_per_s": cfg["batch"] * cfg["seq"] / step,
            "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
            "loss_first": losses[0], "loss_last": losses[-1],
            "params": sum(p.numel() for p in model.parameters())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("vocab", 32000), ("dim", 2048), ("layers", 16), ("heads", 16),
                          ("kv-heads", 8), ("ffn", 5632), ("seq", 2048), ("batch", 4), ("steps", 12)):
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--forms", default="fp32-eager,bf16-sdpa,bf16-compiled")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("torch_reference.py: torch.cuda.is_available() is False", file=sys.stderr)
        return 3
    cfg = {"vocab": args.vocab, "dim": args.dim, "layers": args.layers, "heads": args.heads,
           "kv_heads": args.kv_heads, "ffn": args.ffn, "seq": args.seq, "batch": args.batch,
           "qkv_bias": False, "rope_theta": 10000.0}
    doc = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(), "config": cfg,
           "matmul_tflops": {"fp32": matmul_tflops(torch.float32), "bf16": matmul_tflops(torch.bfloat16)},
           "forms": [], "errors": {}}
    warmup = min(3, max(1, args.steps // 4))
    for form in args.forms.split(","):
        try:
            doc["forms"].append(train(cfg, form, args.steps, warmup))
        except Exception as error:  # reported, and the other forms still run
            doc["errors"][form] = f"{type(error).__name__}: {error}"
        torch.cuda.empty_cache()
    json.dump(doc, sys.stdout, indent=1)
    print()
    return 1 if doc["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
