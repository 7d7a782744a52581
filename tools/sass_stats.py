#!/usr/bin/env python3
"""Opcode histogram of every cubin in the moegemv disk cache (run where cuobjdump exists).

Usage: sass_stats.py CACHE_DIR OUT_DIR. Writes OUT_DIR/sass_<kernel>.txt (full SASS) and prints,
per cubin, its opcode counts over the whole cubin (every function in it); tools/sass_loops.py
gives each HMMA loop's counts and the instructions per weight."""
import collections, glob, os, re, subprocess, sys, tempfile


def cached_sass(cache):
    """(path, SASS text) of every cubin in a moegemv disk cache (its header stripped)."""
    for path in sorted(glob.glob(os.path.join(cache, "**", "*.cubin"), recursive=True)):
        data = open(path, "rb").read()
        elf = data.find(b"\x7fELF")
        if elf < 0:
            continue
        with tempfile.NamedTemporaryFile(suffix=".cubin") as tmp:
            tmp.write(data[elf:])
            tmp.flush()
            sass = subprocess.run(["cuobjdump", "-sass", tmp.name], capture_output=True, text=True).stdout
        yield path, sass


def main():
    cache, out = sys.argv[1], sys.argv[2]
    for path, sass in cached_sass(cache):
        name = re.search(r"Function : (\S+)", sass)
        name = name.group(1) if name else os.path.basename(path)
        if "UBLKCP" in sass:  # the bulk copy engine: a streaming (stream = 1) kernel
            name += "_stream"
        open(os.path.join(out, f"sass_{name}.txt"), "w").write(sass)
        ops = [m.group(1) for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?P\d\s+)?([A-Z][A-Z0-9_]*)", sass)]
        counts = collections.Counter(o for o in ops)
        print(f"{name}: {len(ops)} instructions; HMMA {counts['HMMA']}, LOP3 {counts['LOP3']}, "
              f"SHF {counts['SHF']}, PRMT {counts['PRMT']}, IMAD {counts['IMAD']}, HMUL2 {counts['HMUL2']}, "
              f"LDG {counts['LDG']}, LDS {counts['LDS']}, F2FP {counts['F2FP']}, "
              f"top: {counts.most_common(12)}")


if __name__ == "__main__":
    main()
