#!/usr/bin/env bash
# test/fuzz/seeds.sh — builds the fuzzers' seed corpora under build/fuzz-seeds/
# from the shared corpus (read in place: ../shared/corpus or $SLIME_CORPUS;
# nothing is copied into the repository) plus generated cases:
#
#   region/   small corpus region files whole, large ones cut to 64 KiB,
#             and generated files (build/fuzz/gen_seeds)
#   nbt/      corpus chunk-nbt files, gunzipped level.dat and schematics,
#             damaged NBT samples, decompressed chunks of corpus regions,
#             generated documents
#   value/    slime values made by `build/slimetool import-region` from small
#             corpus regions (with entities/POI files), their reference and
#             mixed forms followed by their store records (gen_seeds --refs),
#             generated values (v1 and v2, with and without references)
#   lz4/      LZ4Block streams of corpus chunks (our encoder) and generated
#   inflate/  gzip level.dat/schematic files, gzip/zlib/raw streams of corpus
#             chunks (our encoder) and generated
#   store/    key + store entry of corpus chunks (our encoder) and generated,
#             good and damaged
#   pack/     generated packs (both codecs) and cold forms of slime files
#             with their prefixes
#
# Needs build/fuzz/gen_seeds and build/slimetool (`make fuzz-seeds` builds
# both). Deterministic; rebuilds the directory from scratch each time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
corpus=${SLIME_CORPUS:-$root/../shared/corpus}
if [ ! -d "$corpus" ]; then
	echo "seeds.sh: corpus NOT FOUND at $corpus (set SLIME_CORPUS)" >&2
	exit 1
fi
corpus=$(cd "$corpus" && pwd -P)
out=$root/build/fuzz-seeds
for b in build/fuzz/gen_seeds build/slimetool; do
	[ -x "$b" ] || { echo "seeds.sh: $b missing (make fuzz-seeds)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"/{region,nbt,value,lz4,inflate,blocks,store,slimefile,schem,bcodec,bcodec2,bcodec3,bcodec4,bcodec5,lmemo,pack}

# a file name from a corpus path: anvil-1.18plus/x/r.0.0.mca -> anvil-1.18plus_x_r.0.0.mca
flat() { local p=${1#"$corpus"/}; printf '%s' "${p//\//_}"; }

cut_len=65536     # large regions: header + the first 14 sectors
whole_max=65536   # regions up to this size are kept whole

mapfile -t regions < <(cd "$corpus" && find . -type f \( -name '*.mca' -o -name '*.mcr' \) |
	sed 's|^\./||' | LC_ALL=C sort)
small=()
for r in "${regions[@]}"; do
	f=$corpus/$r
	size=$(stat -c %s "$f")
	if [ "$size" -le "$whole_max" ]; then
		cp "$f" "$out/region/$(flat "$f")"
	else
		head -c "$cut_len" "$f" >"$out/region/$(flat "$f").head64k"
	fi
	[ "$size" -gt 0 ] && [ "$size" -le 300000 ] && small+=("$f")
done

# raw NBT: chunk documents, gunzipped level.dat / schematics, damaged samples
for f in "$corpus"/chunk-nbt/*/*; do
	[ -f "$f" ] && head -c 131072 "$f" >"$out/nbt/$(flat "$f")"
done
while IFS= read -r f; do
	n=$(flat "$f")
	if gzip -t "$f" 2>/dev/null; then
		gzip -dc "$f" | head -c 131072 >"$out/nbt/$n.nbt" || true
		[ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$out/inflate/$n"
	else
		head -c 131072 "$f" >"$out/nbt/$n"
	fi
done < <(find "$corpus/level-dat" "$corpus/schematic" "$corpus/damaged" -type f \
	! -name '*.mca' ! -name '*.mcr' | LC_ALL=C sort)

# generated cases, and decompressed chunks + re-encoded streams of small regions
./build/fuzz/gen_seeds "$out" "${small[@]}"

# slime values from small regions (the tool names nothing it cannot read)
i=0
for f in "${small[@]}"; do
	case $f in */damaged/*|*/entities-1.17plus/*|*/poi/*) continue ;; esac
	base=$(basename "$f")
	case $base in r.*.*.mc[ar]) ;; *) continue ;; esac
	v=$out/value/$(flat "$f").slime
	if ./build/slimetool import-region --lenient "$f" -o "$v" >/dev/null 2>&1 &&
		[ "$(stat -c %s "$v")" -le 262144 ]; then
		i=$((i + 1))
	else
		rm -f "$v"
	fi
done
# a few of them again at the archive level (block-codec frames); a block-codec
# frame costs what it decodes to, not its stored size, so these are kept to
# 512 KiB of chunk NBT (a 2.9 MB one took 2 s an input under the fuzzer and
# ran past the 30 s timeout in CI's niced second lane)
for f in "${small[@]}"; do
	case $f in */anvil-1.18plus/*/r.*.mca|*/anvil-1.13-1.17/*/r.*.mca|*/anvil-1.2-1.12/*/r.*.mca) ;; *) continue ;; esac
	v=$out/value/$(flat "$f")-archive.slime
	./build/slimetool import-region --lenient --level 20 "$f" -o "$v" >/dev/null 2>&1 &&
		[ "$(stat -c %s "$v")" -le 131072 ] &&
		[ "$(./build/slimetool info "$v" | sed -n 's/.*"raw_bytes": \([0-9]*\).*/\1/p')" -le 524288 ] 2>/dev/null ||
		rm -f "$v"
done
# entities and POI files on their own (components 1 and 2)
for kind in entities poi; do
	while IFS= read -r f; do
		v=$out/value/$(flat "$f").slime
		./build/slimetool import-region --lenient --$kind "$f" --rx 0 --rz 0 -o "$v" \
			>/dev/null 2>&1 && [ "$(stat -c %s "$v")" -le 262144 ] || rm -f "$v"
	done < <(find "$corpus"/$( [ $kind = entities ] && echo entities-1.17plus || echo poi ) \
		-type f -name '*.mca' -size -100k | LC_ALL=C sort)
done
# a region together with entities and POI of the same position
gw=$(mktemp -d /tmp/slime-fuzz-gw.XXXXXX)
trap 'rm -rf "$gw"' EXIT
if ./build/slimetool gen-world "$gw" --size 3 >/dev/null 2>&1; then
	args=()
	[ -f "$gw/entities/r.0.0.mca" ] && args+=(--entities "$gw/entities/r.0.0.mca")
	[ -f "$gw/poi/r.0.0.mca" ] && args+=(--poi "$gw/poi/r.0.0.mca")
	./build/slimetool import-region "${args[@]}" "$gw/region/r.0.0.mca" \
		-o "$out/value/gen-world-3x3.slime" >/dev/null 2>&1 || rm -f "$out/value/gen-world-3x3.slime"
	cp "$gw/region/r.0.0.mca" "$out/region/gen-world-3x3.mca" 2>/dev/null || true
	[ -f "$gw/level.dat" ] && cp "$gw/level.dat" "$out/inflate/gen-world-level.dat"
fi

# reference and mixed forms of the imported values, with their store records
mapfile -t imported < <(find "$out/value" -type f -name '*.slime' ! -name 'gen-*' | LC_ALL=C sort)
[ "${#imported[@]}" -gt 0 ] && ./build/fuzz/gen_seeds --refs "$out" "${imported[@]}" >/dev/null

# blocks: chunk NBT behind one byte that picks the claimed DataVersion
for f in "$out"/nbt/*; do
	[ -f "$f" ] || continue
	{ printf '\004'; cat "$f"; } >"$out/blocks/$(basename "$f")"
done

# slime files: the corpus .slime files, and version-13 files written from the
# 1.18+ values above (slimetool export-slime; the others cannot be version 13)
find "$corpus/slime" -type f -name '*.slime' -size -128k -exec cp {} "$out/slimefile/" \;
for v in "$out"/value/*.slime; do
	[ -f "$v" ] || continue
	s=$out/slimefile/$(basename "$v" .slime).v13.slime
	./build/slimetool export-slime "$v" -o "$s" >/dev/null 2>&1 &&
		[ "$(stat -c %s "$s")" -le 131072 ] || rm -f "$s"
done

# loader memo: the slime file seeds behind an empty memo (u32le 0); the target
# derives each file's own memo and mutates from there
for f in "$out"/slimefile/*; do
	[ -f "$f" ] && { printf '\0\0\0\0'; cat "$f"; } >"$out/lmemo/$(basename "$f")"
done

# schematics: 3 bytes of paste position (0,0,0 and 1,-1,2 in fuzz_schem's
# fixed world), then a corpus schematic as found (gzip) and gunzipped
for f in "$corpus"/schematic/*/*; do
	[ -f "$f" ] || continue
	n=$(flat "$f")
	[ "$(stat -c %s "$f")" -le 131072 ] && { printf '\010\030\010'; cat "$f"; } >"$out/schem/$n"
	if gzip -t "$f" 2>/dev/null && [ "$(gzip -dc "$f" | wc -c)" -le 131072 ]; then
		{ printf '\011\027\012'; gzip -dc "$f"; } >"$out/schem/$n.nbt"
	fi
done

# bcodec: the raw NBT seeds (encode -> decode; the target also damages the encoding)
cp "$out"/nbt/* "$out/bcodec/" 2>/dev/null || true
cp "$out"/nbt/* "$out/bcodec2/" 2>/dev/null || true
cp "$out"/nbt/* "$out/bcodec3/" 2>/dev/null || true
cp "$out"/nbt/* "$out/bcodec4/" 2>/dev/null || true
cp "$out"/nbt/* "$out/bcodec5/" 2>/dev/null || true

for d in region nbt value lz4 inflate blocks store slimefile schem bcodec bcodec2 bcodec3 bcodec4 bcodec5 lmemo; do
	printf 'seeds: %-8s %4d files %8d KiB\n' "$d" "$(find "$out/$d" -type f | wc -l)" \
		"$(du -sk "$out/$d" | cut -f1)"
done
