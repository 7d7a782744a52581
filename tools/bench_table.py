#!/usr/bin/env python3
"""Prints the tables docs/PERF.md's "Current numbers" keeps, from a `moegemv bench --json` file:
the pair with PDL per model and M (us, % of the ceiling; M=1 in bold), each op alone at M=1,
and what PDL saves at each M (pair without PDL minus pair with it).

Usage: bench_table.py BENCH.json"""
import json, sys

data = json.load(open(sys.argv[1]))
rows = {(r["model"], r["m"], r["mode"]): r for r in data["rows"]}
models = list(dict.fromkeys(r["model"] for r in data["rows"]))
ms = sorted({r["m"] for r in data["rows"]})
print(f'{data.get("device", "?")}, ceiling {data["ceiling_gbps"]:.0f} GB/s, '
      f'seed {data.get("seed")}, tune "{data.get("tune", "")}"\n')
print("| model | " + " | ".join(f"M={m}" for m in ms) + " |")
print("|---|" + "---|" * len(ms))
for model in models:
    cells = []
    for m in ms:
        r = rows.get((model, m, "pair_pdl"))
        us = f'{r["us"]:.2f} us' if r else "-"
        cells.append((f"**{us}**" if m == 1 else us) + (f', {r["pct"]:.1f}%' if r else ""))
    print(f"| {model} | " + " | ".join(cells) + " |")
alone = []
for model in models:
    g, d = rows.get((model, 1, "gate_up")), rows.get((model, 1, "down"))
    if g and d:
        alone.append(f'{model} {g["us"]:.2f} / {d["us"]:.2f}')
print("\nEach op alone at M=1 (gate_up / down, us): " + "; ".join(alone))
for model in models:
    saved = []
    for m in ms:
        a, b = rows.get((model, m, "pair")), rows.get((model, m, "pair_pdl"))
        if a and b:
            saved.append(f'M={m} {a["us"] - b["us"]:.2f}')
    print(f"PDL saves ({model}, us): " + ", ".join(saved))
