#!/usr/bin/env python3
"""Summarize an ncu --page source --csv dump (tools/gpu_profile.sh): the instructions with the most
warp-stall samples and an opcode histogram (share of executed instructions, share of stalls)."""
import csv
import io
import sys
from collections import Counter


def kernels(path):
    lines = open(path, errors="replace").read().split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')] + [len(lines)]
    for a, b in zip(starts, starts[1:]):
        rows = list(csv.reader(io.StringIO("\n".join(lines[a + 1:b]))))
        yield lines[a].split(",")[1].strip('"'), rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]


def main(path, top=25):
    for name, hdr, rows in kernels(path):
        si = hdr.index("Warp Stall Sampling (All Samples)")
        ex = hdr.index("Instructions Executed")
        num = lambda r, i: float(r[i] or 0)
        stalls = sum(num(r, si) for r in rows) or 1
        print(f"== {name}: {len(rows)} SASS instructions, {stalls:.0f} stall samples")
        for r in sorted(rows, key=lambda r: -num(r, si))[:top]:
            print(f"  {num(r, si) / stalls * 100:5.1f}%  {r[1][:100]}")
        ops, ops_stall = Counter(), Counter()
        for r in rows:
            words = r[1].split()
            if not words:
                continue
            op = (words[1] if words[0].startswith("@") and len(words) > 1 else words[0]).split(".")[0]
            ops[op] += num(r, ex)
            ops_stall[op] += num(r, si)
        total = sum(ops.values()) or 1
        for op, n in ops.most_common(16):
            print(f"  {op:8s} {n / total * 100:5.1f}% of instructions  {ops_stall[op] / stalls * 100:5.1f}% of stalls")


if __name__ == "__main__":
    main(sys.argv[1])
