#!/usr/bin/env python3
"""Stall reasons of an ncu --page source --csv dump (tools/gpu_profile.sh): the kernel's share of each
stall reason, its hottest instructions with their top two reasons, and (optionally) the share of
samples and executed instructions per SASS address range, e.g. the parts of a persistent kernel.

usage: ncu_regions.py FILE.csv [TOP] [name:start:end,...]   (offsets in hex from the kernel's start,
as `cuobjdump --dump-sass` prints them)"""
import sys
from collections import Counter

from ncu_src import kernels


def main(path, top=15, regions=None):
    for name, hdr, rows in kernels(path):
        col = {h: i for i, h in enumerate(hdr)}
        num = lambda r, h: float(r[col[h]] or 0)
        reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
        base = min(int(r[col["Address"]], 16) for r in rows)
        off = lambda r: int(r[col["Address"]], 16) - base
        total = sum(num(r, "Warp Stall Sampling (All Samples)") for r in rows) or 1
        print(f"== {name}: {total:.0f} stall samples")
        share = Counter({h: sum(num(r, h) for r in rows) for h in reasons})
        for h, v in share.most_common(10):
            print(f"  {h:24s} {v / total * 100:5.1f}%")
        for r in sorted(rows, key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))[:top]:
            top2 = sorted(((num(r, h), h) for h in reasons), reverse=True)[:2]
            print(f"  {off(r):#06x} {num(r, 'Warp Stall Sampling (All Samples)') / total * 100:5.1f}% "
                  f"executed {r[col['Instructions Executed']]:>8s}  {r[col['Source']][:56]:56s} "
                  + " ".join(f"{h}:{v:.0f}" for v, h in top2))
        for reg in regions or []:
            label, a, b = reg.split(":")
            inside = [r for r in rows if int(a, 16) <= off(r) < int(b, 16)]
            s = sum(num(r, "Warp Stall Sampling (All Samples)") for r in inside)
            e = sum(num(r, "Instructions Executed") for r in inside)
            print(f"  region {label:10s} {s / total * 100:5.1f}% of samples, {e:.0f} warp instructions")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15,
         sys.argv[3].split(",") if len(sys.argv) > 3 else None)
