#!/usr/bin/env python3
"""Plots % of the streaming-read ceiling against M per model from `moegemv bench --json` files.

Usage: plot_bench.py [--card NAME] OUT.png BENCH.json [BENCH.json...]; each file is one line
style (its name is the legend label), each model one colour; the chained pair with PDL is
plotted. NAME goes in the title (default H200)."""
import json, os, sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

args = sys.argv[1:]
card = "H200"
if args[:1] == ["--card"]:
    card, args = args[1], args[2:]
out, files = args[0], args[1:]
styles = ["-o", "--s", ":^", "-.v"]
fig, ax = plt.subplots(figsize=(8, 5))
colors = {}
for n, path in enumerate(files):
    data = json.load(open(path))
    label = os.path.splitext(os.path.basename(path))[0]
    models = sorted({r["model"] for r in data["rows"]})
    for model in models:
        rows = sorted((r for r in data["rows"] if r["model"] == model and r["mode"] == "pair_pdl"),
                      key=lambda r: r["m"])
        color = colors.setdefault(model, f"C{len(colors)}")
        ax.plot([r["m"] for r in rows], [r["pct"] for r in rows], styles[n % len(styles)],
                color=color, label=f"{model} ({label}, ceiling {data['ceiling_gbps']:.0f} GB/s)")
ax.set_xscale("log", base=2)
ax.set_xlabel("M (tokens per decode step)")
ax.set_ylabel("% of streaming-read ceiling (gate_up + down_combine, PDL)")
ax.set_ylim(0, 100)
ax.axhline(85, color="gray", lw=0.8, ls=":")
ax.grid(alpha=0.3)
ax.legend(fontsize=7, loc="lower right", ncol=2)
ax.set_title(f"moegemv on {card}: unique bytes touched / time, per layer")
fig.tight_layout()
fig.savefig(out, dpi=110)
