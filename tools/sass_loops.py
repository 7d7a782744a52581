#!/usr/bin/env python3
"""Warp instructions per weight in each kernel's HMMA loops, and the issue rate they need at a
streaming-read ceiling (run where cuobjdump is on PATH; no GPU needed).

Usage: sass_loops.py CACHE_DIR [GBPS ...]   (default ceilings: 3190 and 4500 GB/s, an H100's and
an H200's as measured by `moegemv bench`). For every function of every cubin in the moegemv disk
cache, each loop (a backward branch) whose body holds an HMMA is printed, in address order, with
its length, its HMMA count and its opcode mix. Loops nest (an unrolled step loop inside a unit
loop, a routed tile's loop beside the shared expert's): which one carries a kernel's weights is
read off the source and the mix (docs/PERF.md, Session 28, names them for the presets' kernels).

One HMMA.16816 consumes 256 weights of A (16 rows x 16 k), so a loop of L instructions with h
HMMA costs L / (256 h) warp instructions per weight. NVFP4 streams 0.5625 bytes per weight (a
nibble and a sixteenth of a scale byte), so at G GB/s an SM must consume
G / 0.5625 / (SMS * CLOCK) weights per cycle, and issue that many times the instructions per
weight; an SM issues at most 4 warp instructions per cycle (one per scheduler). SMS = 132 and
CLOCK = 1.98 GHz (H100 SXM and H200 both; the clock read on the device in earlier sessions).
Loop bodies include the branches' cold paths only where they lie inside the body.
"""
import collections, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_stats import cached_sass  # noqa: E402

SMS, CLOCK, BYTES_PER_WEIGHT = 132, 1.98e9, 0.5625


def functions(sass):
    for chunk in sass.split("Function : ")[1:]:
        name = chunk.split("\n", 1)[0].strip()
        ins = []
        for line in chunk.split("\n"):
            m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
            if m:
                ins.append((int(m.group(1), 16), m.group(2)))
        yield name, ins


def opcode(text):
    parts = text.split()
    return (parts[1] if parts[0].startswith("@") else parts[0]).split(".")[0]


def hmma_loops(ins):
    index = {a: i for i, (a, _) in enumerate(ins)}
    for i, (a, text) in enumerate(ins):
        if opcode(text) == "BRA":
            m = re.search(r"0x([0-9a-f]+)\s*$", text)
            target = int(m.group(1), 16) if m else None
            if target is not None and target < a and target in index:
                body = [opcode(t) for _, t in ins[index[target]:i + 1]]
                if any(o == "HMMA" for o in body):
                    yield target, a, collections.Counter(body), len(body)


def main():
    cache = sys.argv[1]
    ceilings = [float(g) for g in sys.argv[2:]] or [3190.0, 4500.0]
    rate = {g: g * 1e9 / BYTES_PER_WEIGHT / (SMS * CLOCK) for g in ceilings}
    print("weights per SM-cycle at the ceiling: " +
          ", ".join(f"{g:.0f} GB/s {r:.1f}" for g, r in rate.items()))
    for _, sass in cached_sass(cache):
        for name, ins in functions(sass):
            loops = sorted(hmma_loops(ins), key=lambda l: l[0])
            for start, end, counts, length in loops:
                per_weight = length / (256 * counts["HMMA"])
                need = ", ".join(f"{per_weight * r:.2f}/cycle at {g:.0f}" for g, r in rate.items())
                mix = " ".join(f"{o} {c}" for o, c in counts.most_common(8))
                print(f"{name} [{start:#x}, {end:#x}]: {length} instr, HMMA {counts['HMMA']}, "
                      f"{length / counts['HMMA']:.1f} per HMMA, {per_weight:.4f} per weight; "
                      f"issue needed {need}; {mix}")


if __name__ == "__main__":
    main()
