#!/usr/bin/env python3
"""Prints each row's timed batches (per-layer us, run order) from a `moegemv bench --json` file.

Usage: bench_batches.py BENCH.json [MODE_PREFIX]; only rows whose mode starts with MODE_PREFIX
(e.g. "pair": both pairs), all rows without it. A row whose slow batches sit together points at a
clock or power state; scattered ones at a race between kernels (session 34, M=16 pairs)."""
import json, sys

path, prefix = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
for row in json.load(open(path))["rows"]:
    if row["mode"].startswith(prefix):
        batches = " ".join(f"{b:.0f}" for b in row.get("batch_us", []))
        print(f'{row["model"]} M={row["m"]} {row["mode"]} {row["us"]:.1f}: {batches}')
