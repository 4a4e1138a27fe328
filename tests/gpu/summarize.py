#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads what run-on-gpu.sh left in OUT and writes summary.json and summary.md:
the engine's tokens/s and MFU beside PyTorch's on the same model, the
ablation's steps, and the engine profile's memory predictions against the
peaks measured on the GPU. A step that failed or left no JSON is reported as
missing, never filled in.

Usage: summarize.py OUT        Exit codes: 0 written, 2 OUT is not a folder.
"""
import json
import os
import statistics
import sys

POLICIES = ["none", "selective", "full", "layers_8"]


def load(out, name):
    try:
        with open(os.path.join(out, name + ".json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def mfu(tokens_per_s, flops_per_token, peak_tflops):
    if not (tokens_per_s and flops_per_token and peak_tflops):
        return None
    return tokens_per_s * flops_per_token / (peak_tflops * 1e12)


def summarize(out):
    reference = load(out, "torch_reference") or {}
    bf16 = (reference.get("matmul_tflops") or {}).get("bf16")
    engine = {name: load(out, name) for name in ("smoke", "nccl", "engine_eager", "engine_compiled")}
    flops = next((run.get("flops_per_token") for run in engine.values() if run and run.get("flops_per_token")), None)
    doc = {"matmul_tflops": reference.get("matmul_tflops"), "torch": reference.get("torch"),
           "device": reference.get("device"), "engine": {}, "pytorch": {}, "memory": [],
           "ablation": None, "missing": []}
    for name, run in engine.items():
        if not run:
            doc["missing"].append(name)
            continue
        doc["engine"][name] = {"status": run.get("status"), "tokens_per_s": run.get("tokens_per_s"),
                               "step_time_s": run.get("step_time_s"), "peak_bytes": run.get("peak_bytes"),
                               "mfu_own_peak": run.get("mfu"),
                               "mfu_vs_bf16": mfu(run.get("tokens_per_s"), flops, bf16)}
    for form in reference.get("forms", []):
        doc["pytorch"][form["form"]] = dict(form, mfu_vs_bf16=mfu(form["tokens_per_s"], flops, bf16))
    for form, error in (reference.get("errors") or {}).items():
        doc["pytorch"][form] = {"error": error}
    errors = []
    for policy in POLICIES:
        run, predicted = load(out, f"memory_{policy}_run"), load(out, f"memory_{policy}_predicted")
        if not (run and predicted and run.get("peak_bytes")):
            doc["missing"].append(f"memory_{policy}")
            continue
        error = (predicted["total_bytes"] - run["peak_bytes"]) / run["peak_bytes"]
        errors.append(abs(error))
        doc["memory"].append({"policy": policy, "measured_bytes": run["peak_bytes"],
                              "predicted_bytes": predicted["total_bytes"], "error": error})
    if errors:
        doc["memory_error"] = {"median": statistics.median(errors), "worst": max(errors)}
    ablation = load(out, "ablation")
    if ablation:
        doc["ablation"] = ablation.get("summary", ablation.get("configurations"))
    else:
        doc["missing"].append("ablation")
    return doc


def markdown(doc):
    lines = [f"# GPU run: {doc.get('device')}, PyTorch {doc.get('torch')}", ""]
    rates = doc.get("matmul_tflops") or {}
    lines.append(f"Matrix products: fp32 {rates.get('fp32')} TFLOP/s, bf16 {rates.get('bf16')} TFLOP/s")
    lines += ["", "| who | form | tokens/s | MFU vs bf16 |", "|---|---|---|---|"]
    for name, run in doc["engine"].items():
        lines.append(f"| engine | {name} | {run.get('tokens_per_s')} | {run.get('mfu_vs_bf16')} |")
    for name, run in doc["pytorch"].items():
        lines.append(f"| PyTorch | {name} | {run.get('tokens_per_s', run.get('error'))} | {run.get('mfu_vs_bf16')} |")
    lines += ["", "| policy | measured | predicted | error |", "|---|---|---|---|"]
    for row in doc["memory"]:
        lines.append(f"| {row['policy']} | {row['measured_bytes']} | {row['predicted_bytes']} | {row['error']:+.2%} |")
    if doc["missing"]:
        lines += ["", "Missing (the step failed; see its .log): " + ", ".join(doc["missing"])]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: summarize.py OUT (a folder run-on-gpu.sh wrote)", file=sys.stderr)
        return 2
    out = sys.argv[1]
    doc = summarize(out)
    for name, text in (("summary.json", json.dumps(doc, indent=1) + "\n"), ("summary.md", markdown(doc))):
        temporary = os.path.join(out, name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
