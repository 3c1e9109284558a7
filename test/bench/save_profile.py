"""Split `perf script` samples of a loader save's backend into the parts of a save.

Reads perf script output (DWARF call graphs) on stdin, prints a table: each
sample counts once, for the first part (in the order below) one of whose
functions is on its stack. Used by bench_save_profile.sh.
"""
import re
import sys

PARTS = [
    ("decompress the file's blocks (zstd)", {"sl_sf_zblock"}),
    ("compress the changed chunks' frames (zstd)", {"sl_sffr_build"}),
    ("compress the changed chunks' store entries (zstd)", {"sl_store_entry_encode"}),
    ("count the changed chunks' contents (summaries)", {"sl_vsum_chunk"}),
    ("convert the changed chunks, the rest", {"sl_lmemo_store_chunks"}),
    ("read the file: parse and hash its records", {"sl_slimefile_read_memo"}),
    ("insert the store entries", {"slime_store_put"}),
    ("the save's statements (frames, world row, save row, triggers)", {"run_save"}),
    ("the rest of the conversion (memo, value)", {"convert"}),
    ("the rest of the save", {"save_as_owner"}),
    ("commit (WAL flush)", {"CommitTransactionCommand"}),
    ("the rest of the backend (protocol, executor)", {"PostgresMain"}),
]


def samples(lines):
    cur = []
    for line in lines:
        if line.startswith("\t"):
            parts = line.strip().split(None, 1)
            sym = parts[1].rsplit(" (", 1)[0] if len(parts) > 1 else "?"
            cur.append(re.sub(r"\+0x[0-9a-f]+$", "", sym))
        elif not line.strip():
            if cur:
                yield cur
            cur = []
    if cur:
        yield cur


def main():
    counts = {name: 0 for name, _ in PARTS}
    other = 0
    total = 0
    for stack in samples(sys.stdin):
        total += 1
        frames = set(stack)
        for name, funcs in PARTS:
            if frames & funcs:
                counts[name] += 1
                break
        else:
            other += 1
    if total == 0:
        print("no samples")
        return
    print(f"\nwhere a loader save's backend CPU goes ({total} samples, perf, DWARF call graphs):")
    print("| part | share |")
    print("|---|---:|")
    for name, _ in PARTS:
        print(f"| {name} | {100.0 * counts[name] / total:.1f}% |")
    print(f"| stacks perf could not unwind | {100.0 * other / total:.1f}% |")


main()
