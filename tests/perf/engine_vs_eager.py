#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trains the engine's model in PyTorch eager mode: engine_vs_eager's baseline.

The model is the parity test's independent reference (llama_reference.py), so
the engine is timed against a model already proved to compute the same
numbers. The step is what `trainbench run` times, in the same order: draw a
batch of uniform random tokens, forward and loss, backward, clip the gradient
norm to 1.0, AdamW (lr 3e-4, betas 0.9/0.95, eps 1e-8, weight decay 0.1 on 2-D
weights only), drop the gradients, read the loss back. Weights start from
normal(0, 0.02), norms from one. Prints one JSON document (or writes it to
--out): per-step seconds, losses, threads; with --profile, also where the
time goes, per op and phase.

With --ddp, under torchrun, it is PyTorch's own data parallelism on Gloo:
DistributedDataParallel with its defaults (25 MiB buckets, the first 1 MiB),
each rank on its own batch; rank 0 reports, and the loss it reports is the
mean over the ranks, as the engine's is.
"""
import argparse
import json
import os
import sys
import time

try:
    import torch
except ImportError as missing:
    print(f"engine_vs_eager.py: cannot import torch ({missing}); install python3-torch",
          file=sys.stderr)
    sys.exit(3)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core", "engine", "parity"))
import llama_reference  # noqa: E402  (found through the path set just above)


def build(cfg, seed):
    torch.manual_seed(seed)
    model = llama_reference.Llama(cfg)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() == 2:
                parameter.normal_(0.0, 0.02)
            elif "norm" in name:
                parameter.fill_(1.0)
            else:
                parameter.zero_()
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() != 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
        lr=3e-4, betas=(0.9, 0.95), eps=1e-8)
    return model, optimizer


class Phases:
    """Wall time per phase of the step, summed over the profiled steps."""

    def __init__(self):
        self.seconds = {}
        self.last = None

    def start(self):
        self.last = time.perf_counter()

    def mark(self, phase):
        now = time.perf_counter()
        self.seconds[phase] = self.seconds.get(phase, 0.0) + now - self.last
        self.last = now


def train_step(model, optimizer, cfg, phases):
    phases.start()
    rows = torch.randint(cfg["vocab"], (cfg["batch"], cfg["seq"] + 1))
    # DDP's hooks run on the wrapper's forward; loss() is the model's own.
    _, loss = model(rows) if cfg.get("ddp") else model.loss(rows)
    phases.mark("forward")
    loss.backward()
    phases.mark("backward")
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    phases.mark("clip")
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    phases.mark("optimizer")
    if cfg.get("ddp"):
        reported = loss.detach().clone()
        torch.distributed.all_reduce(reported)
        value = reported.item() / torch.distributed.get_world_size()
    else:
        value = loss.item()
    phases.mark("sync")
    return value


class LossForward(torch.nn.Module):
    """The model with loss() as its forward, so that DDP wraps the step."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, rows):
        return self.model.loss(rows)


def op_table(model, optimizer, cfg, steps):
    """Self CPU time per ATen op over `steps` steps, largest first."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            train_step(model, optimizer, cfg, Phases())
    rows = []
    for event in prof.key_averages():
        if event.key.startswith("aten::"):
            rows.append({"op": event.key, "calls": event.count,
                         "self_s": event.self_cpu_time_total / 1e6 / steps})
    rows.sort(key=lambda row: row["self_s"], reverse=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in ("vocab", "dim", "layers", "heads", "kv_heads", "ffn", "seq", "batch"):
        parser.add_argument("--" + field.replace("_", "-"), type=int, required=True)
    parser.add_argument("--rope-theta", type=float, default=10000.0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--profile", type=int, default=0, metavar="STEPS",
                        help="after the timed steps, profile this many more per op")
    parser.add_argument("--out", help="write the JSON document here instead of stdout")
    parser.add_argument("--ddp", action="store_true",
                        help="DistributedDataParallel on Gloo, from torchrun's environment")
    args = parser.parse_args()
    if args.steps < 1 or args.threads < 1:
        print(f"engine_vs_eager.py: --steps ({args.steps}) and --threads ({args.threads}) "
              "must be at least 1", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    cfg = {key: getattr(args, key) for key in ("vocab", "dim", "layers", "heads", "kv_heads",
                                               "ffn", "seq", "batch", "rope_theta")}
    cfg["qkv_bias"] = False
    rank = 0
    if args.ddp:
        torch.distributed.init_process_group("gloo")
        rank = torch.distributed.get_rank()
    model, optimizer = build(cfg, args.seed)
    if args.ddp:
        wrapper = LossForward(model)
        # The RoPE factors are a complex64 buffer, which Gloo cannot
        # broadcast; every rank computes the same ones anyway.
        torch.nn.parallel.DistributedDataParallel._set_params_and_buffers_to_ignore_for_model(
            wrapper, ["model.factors"])
        model = torch.nn.parallel.DistributedDataParallel(wrapper)
        cfg["ddp"] = True
        torch.manual_seed(args.seed + 1000 * rank)  # each rank its own tokens
    step_times, cpu_times, losses, phases = [], [], [], Phases()
    for _ in range(args.steps):
        start, cpu_start = time.perf_counter(), time.process_time()
        losses.append(train_step(model, optimizer, cfg, phases))
        step_times.append(time.perf_counter() - start)
        # Every thread of the process, Gloo's included, as the engine's cpu_s.
        cpu_times.append(time.process_time() - cpu_start)
    result = {"step_times": step_times, "cpu_times": cpu_times, "losses": losses,
              "threads": torch.get_num_threads(),
              "torch_version": torch.__version__,
              "phase_seconds": {k: v / args.steps for k, v in phases.seconds.items()}}
    if args.profile > 0:
        result["ops"] = op_table(model, optimizer, cfg, args.profile)
    if args.ddp:
        result["world_size"] = torch.distributed.get_world_size()
        torch.distributed.barrier()
    if rank == 0:
        if args.out:
            with open(args.out + ".tmp", "w", encoding="utf-8") as out:
                out.write(json.dumps(result))
            os.replace(args.out + ".tmp", args.out)
        else:
            print(json.dumps(result))
    if args.ddp:
        # No teardown: in PyTorch 1.13 the DDP wrapper's destructor frees the
        # Gloo group, whose destructor joins its worker threads while holding
        # the GIL, and a worker releasing a tensor Python owns waits for the
        # GIL: rank 0 hung there twice on 2026-12-03 (gdb: ~Reducer ->
        # ~ProcessGroupGloo -> thread::join against runLoop ->
        # ~TensorImpl -> PyEval_AcquireThread). Every result is out by now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
