#!/usr/bin/env bash
# test/world.sh — whole worlds out of the database and back (issues #7, #36).
#
# For every world folder the shared corpus yields, for generated worlds in
# both layouts (gen-world --layout old|new: a player with an inventory
# holding a map, stats, advancements, the map, raids, a data pack) and for
# a 26.1-layout world of the corpus's newest chunks with 26.1's level.dat:
#   slimetool copy-world and copy-world --files  ->  \copy into worlds and
#   worlds_files  ->  clients/export-world.sh (both tables in one snapshot
#   | slimetool export-world --with-files)  ->  copy-world (--files) of the
#   exported folder (strict)
# and checks
#   - identical values and world files: both copy-world streams of each
#     kind equal byte for byte (names, dimensions, value bytes, paths, file
#     bytes);
#   - the layout the world's DataVersion calls for (computed in SQL: 4774
#     and on, dimensions/minecraft/<name>/; before, region/ at the root);
#   - every region and .mcc file equal to what slime_export_region /
#     slime_export_external give for that dimension, kind and region (the
#     folder path computed in SQL, independently of the tool), level.dat to
#     the kept file or slime_level(), every other file to worlds_files; no
#     file more, none missing; whole 4 KiB sectors; no staging folder left;
#   - the exported folder against the source folder, file by file:
#     identical bytes, or a chunk file written again whose chunks the
#     identical values prove the same; every file not identical is listed
#     (SLIME_WORLD_LISTING=FILE gets every file of every world);
#   - level.dat is gzip (gzip -t), its NBT parses (slime_nbt_to_json) with a
#     Data compound holding version 19132/19133, and Data.DataVersion is
#     there whenever the world's chunks carry one.
# Then --layout forced both ways (the same values, world files moved with
# their folders), the overworld in both layouts refused, every player's
# inventory and every NBT and JSON world file read in SQL, and a level.dat
# changed in SQL winning over the kept bytes.
# The second copy-world re-reads every region file strictly and export-world
# reads back each file it writes. No Minecraft server is started: "Minecraft
# can open it" is checked only as far as the files' format goes.
#
# Then the failure and edge cases of export-world: reference-form values
# (chunk store) refused naming the row and exported through slime_resolve,
# a chunk over 1 MiB compressed (.mcc), unsafe dimension names, several
# worlds in one stream, a stream cut short, a non-empty target folder and
# --force (stale region files removed, other files kept), a server's
# session.lock, and which level.dat is written when dimensions disagree.
# Last, a folder that is not a world: copy-world, import-world.sh and demo.sh
# refuse it before creating or stopping anything, naming what they looked for.
# Then slimetool's world files: values (.slimev), slime files (.slime) and
# region files told apart by their bytes in every command taking a world,
# other files refused saying what reads them, render's pixel cap; and the
# world scripts' messages for a world imported twice or not in the table.
#
# Uses the cluster in the PG* environment, else starts a throwaway one.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
    slime_log "world: no PGHOST/PGPORT set, starting a throwaway cluster"
    slime_cluster_start
fi
CORPUS=$(slime_corpus)
make -s tool PG_CONFIG="$SLIME_PG_CONFIG" >/dev/null
TOOL=$SLIME_ROOT/build/slimetool
export SLIMETOOL=$TOOL

DB=slime_world_test
WORK=$(mktemp -d /tmp/slime-world.XXXXXX)
slime_on_exit 'dropdb --if-exists "$DB" 2>/dev/null || true; rm -rf "$WORK"'
dropdb --if-exists "$DB" 2>/dev/null || true
createdb "$DB"
export PGDATABASE=$DB
psql_() { slime_psql "$@"; }
psql_ -c "SET client_min_messages = warning" -c "CREATE EXTENSION slime" -c "
CREATE TABLE worlds (world text, dimension text, data slime, PRIMARY KEY (world, dimension));
CREATE TABLE worlds_files (world text, path text, data bytea, PRIMARY KEY (world, path));
CREATE TABLE saves (LIKE worlds INCLUDING ALL);
CREATE TRIGGER saves_store BEFORE INSERT OR UPDATE ON saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE TABLE again (LIKE worlds INCLUDING ALL);
CREATE TABLE odd (world text, dimension text, data slime);"

slime_tally_init
SERVER_LOG=${SLIME_PGTMP:+$SLIME_PGTMP/server.log}
n_out=0
new_out() { n_out=$((n_out + 1)); OUT=$WORK/out/$n_out; mkdir -p "$WORK/out"; }

# ---- checks ------------------------------------------------------------------

# The world's DataVersion and the layout it calls for, computed in SQL (not
# by the tool): level.dat's Data.DataVersion (the world compound's, else a
# level.dat kept among the world's files), else the highest chunk
# DataVersion; 4774 (26.1 snapshot 6) on is the new layout.
LAYOUT_SQL="SELECT CASE WHEN coalesce(
    (SELECT (slime_nbt_to_json(slime_level(data)) -> 'Data' ->> 'DataVersion')::int FROM :\"t\"
      WHERE world = :'w' AND slime_level(data) IS NOT NULL ORDER BY dimension <> 'minecraft:overworld', dimension LIMIT 1),
    (SELECT (slime_file_json(path, data) -> 'Data' ->> 'DataVersion')::int FROM :\"tf\"
      WHERE world = :'w' AND path = 'level.dat'),
    (SELECT max((slime_info(data) -> 'data_version' ->> 'max')::int) FROM :\"t\" WHERE world = :'w')) >= 4774
  THEN 'new' ELSE 'old' END"

# The folder of a dimension in the layout :'layout', computed in SQL.
FOLDER_SQL="CASE WHEN :'layout' = 'new' AND dimension IN ('minecraft:overworld', 'minecraft:the_nether', 'minecraft:the_end')
         THEN 'dimensions/minecraft/' || substr(dimension, 11) || '/'
    ELSE CASE dimension WHEN 'minecraft:overworld' THEN ''
    WHEN 'minecraft:the_nether' THEN 'DIM-1/' WHEN 'minecraft:the_end' THEN 'DIM1/'
    ELSE 'dimensions/' || split_part(dimension, ':', 1) || '/'
         || substr(dimension, strpos(dimension, ':') + 1) || '/' END END"

# world_facts WORLD: "layout|dimensions|chunks|kept" of a world of worlds, one
# query; kept: the region-format files among its world files, space-separated.
world_facts() {
    psql_ -At -F '|' -v t=worlds -v tf=worlds_files -v w="$1" <<<"SELECT ($LAYOUT_SQL), count(*),
        sum((slime_info(data) ->> 'chunks')::int),
        (SELECT string_agg(path, ' ') FROM worlds_files WHERE world = :'w' AND path ~ '(^|/)r\.[^/]*\.mc[ar]\$')
        FROM worlds WHERE world = :'w'"
}

# expected_files TABLE WORLD LAYOUT: "path md5" of every file the export must
# hold: region and .mcc files as slime_export_region / slime_export_external
# give them, level.dat as kept among the world's files when it holds the
# world compound, else as slime_level gives it, and every other world file
# of TABLE_files (whose paths are in the world's layout already).
expected_files() {
    psql_ -At -F ' ' -v t="$1" -v tf="$1_files" -v w="$2" -v layout="$3" <<SQL
WITH v AS (SELECT dimension, data, $FOLDER_SQL AS folder FROM :"t" WHERE world = :'w'),
r AS (SELECT v.*, g.rx, g.rz, k.kind FROM v, slime_regions(v.data) g,
             unnest(ARRAY['region', 'entities', 'poi']) k(kind)
      WHERE CASE k.kind WHEN 'region' THEN g.region_chunks WHEN 'entities' THEN g.entity_chunks
                        ELSE g.poi_chunks END > 0),
lvl AS (SELECT slime_level(data) AS l FROM v WHERE slime_level(data) IS NOT NULL
        ORDER BY dimension <> 'minecraft:overworld', dimension LIMIT 1),
kept AS (SELECT data FROM :"tf" WHERE world = :'w' AND path = 'level.dat')
SELECT folder || kind || '/r.' || rx || '.' || rz || '.mca', md5(slime_export_region(data, rx, rz, kind)) FROM r
UNION ALL
SELECT folder || kind || '/c.' || e.x || '.' || e.z || '.mcc', md5(e.data)
  FROM r, slime_export_external(r.data, r.rx, r.rz, r.kind) e
UNION ALL
SELECT 'level.dat', md5(CASE WHEN (SELECT slime_nbt_to_json(data) FROM kept) = slime_nbt_to_json(l)
                             THEN (SELECT data FROM kept) ELSE l END) FROM lvl
UNION ALL
SELECT 'level.dat', md5(data) FROM kept WHERE NOT EXISTS (SELECT FROM lvl)
UNION ALL
SELECT path, md5(data) FROM :"tf" WHERE world = :'w' AND path <> 'level.dat'
ORDER BY 1;
SQL
}

# actual_files DIR: "path md5" of every file (r.X.Z.mcr listed as .mca
# where the table's chunks make it; kept as a world file, its own name).
actual_files() {
    (cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s\n' "$f" "$(md5sum <"$f" | cut -d' ' -f1)"
    done) | LC_ALL=C sort
}

# mcr_as_mca: the .mcr files the export wrote from chunks, named as SQL names them.
mcr_as_mca() { sed 's/\(r\.-\{0,1\}[0-9]*\.-\{0,1\}[0-9]*\)\.mcr /\1.mca /'; }

# check_layout DIR [KEPT]: what the folder must not hold; "" or a problem: a
# staging folder or temporary file left, region files of other than whole
# 4 KiB sectors among those export-world writes from chunks (KEPT: the
# region-format world files, space-separated, checked byte for byte instead).
check_layout() {
    local d=$1 f base size written
    written=$(cd "$d" && find . -type f -printf '%P\n' | grep -E '(^|/)(region|entities|poi)/r\.-?[0-9]+\.-?[0-9]+\.mc[ar]$' |
        grep -vxF -f <(tr ' ' '\n' <<<"${2:-}"; echo /) || true)
    while IFS= read -r f; do
        base=${f##*/}
        case $base in .slime-export.*|.*.tmp) echo "staging folder or temporary file left: $f"; return ;; esac
    done < <(cd "$d" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort)
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        size=$(stat -c %s "$d/$f")
        if [ "$size" -lt 8192 ] || [ $((size % 4096)) != 0 ]; then
            echo "$f is $size bytes, not whole 4096-byte sectors after the 8 KiB header"; return
        fi
    done <<<"$written"
}

# compare_tree NAME SRC OUT: every file of the source folder against the
# export, by path: identical bytes, or (a chunk file the export wrote again
# from the table's chunks, which the identical values prove the same) the
# same chunks; any other difference, a file missing or one more fails.
# Lists each file that is not identical; SLIME_WORLD_LISTING gets them all.
compare_tree() {
    local name=$1 src=$2 out=$3 f ident=0 chunks=0 bad=0 status
    local listing=$WORK/listing
    : >"$listing"
    while IFS= read -r f; do
        case $f in session.lock|level.dat_old) continue ;; esac
        if [ ! -f "$out/$f" ]; then
            status=MISSING
        elif cmp -s "$src/$f" "$out/$f"; then
            status=identical
        elif [[ $f =~ (^|/)(region|entities|poi)/(r\.-?[0-9]+\.-?[0-9]+\.mc[ar]|c\.-?[0-9]+\.-?[0-9]+\.mcc)$ ]] ||
             [[ $f =~ ^r\.-?[0-9]+\.-?[0-9]+\.mc[ar]$ ]]; then
            status="same chunks (written again: $(stat -L -c %s "$src/$f") -> $(stat -c %s "$out/$f") bytes)"
        else
            status=DIFFERS
        fi
        echo "$f: $status" >>"$listing"
    done < <(cd "$src" && find -L . -type f -printf '%P\n' | LC_ALL=C sort)
    while IFS= read -r f; do
        [ -e "$src/$f" ] || echo "$f: EXTRA (not in the source folder)" >>"$listing"
    done < <(cd "$out" && find . -type f -printf '%P\n' | LC_ALL=C sort)
    ident=$(grep -c ': identical$' "$listing" || true)
    chunks=$(grep -c ': same chunks' "$listing" || true)
    bad=$(grep -Ec ': (MISSING|DIFFERS|EXTRA)' "$listing" || true)
    if [ -n "${SLIME_WORLD_LISTING:-}" ]; then sed "s|^|$name: |" "$listing" >>"$SLIME_WORLD_LISTING"; fi
    grep -v ': identical$' "$listing" | sed "s|^|        $name: |" || true
    TREE="$((ident + chunks + bad)) files: $ident identical, $chunks chunk files with the same chunks"
    [ "$bad" = 0 ]
}

# roundtrip NAME WORLD_DIR [copy-world options]: the whole cycle and checks:
# copy-world (dimensions) and copy-world --files into worlds and
# worlds_files, clients/export-world.sh, copy-world of the export; the
# same values, the same files stream, the layout the world's DataVersion
# calls for, every file as SQL says, the source folder file by file.
roundtrip() {
    local name=$1 src=$2 a b af bf err layout level dims chunks want kept
    shift 2
    a=$WORK/a.copy b=$WORK/b.copy af=$WORK/a.files bf=$WORK/b.files err=$WORK/err
    if ! "$TOOL" copy-world "$src" --name "$name" "$@" >"$a" 2>"$err"; then
        if grep -q 'not a world folder' "$err"; then
            echo "skip:   $name: copy-world finds no dimension in it ($(grep -o 'no region/.*' "$err" | head -1))"
            return
        fi
        result FAIL "$name: copy-world failed: $(tail -n 3 "$err")"; return
    fi
    "$TOOL" copy-world "$src" --name "$name" --files "$@" >"$af" 2>"$err" ||
        { result FAIL "$name: copy-world --files failed: $(tail -n 3 "$err")"; return; }
    psql_ -1 -c "\\copy worlds(world, dimension, data) FROM '$a' WITH (FORMAT binary)" \
             -c "\\copy worlds_files(world, path, data) FROM '$af' WITH (FORMAT binary)" ||
        { result FAIL "$name: loading the COPY streams failed"; return; }
    new_out
    if ! bash clients/export-world.sh "$name" worlds "$OUT" 2>"$err"; then
        result FAIL "$name: export-world failed: $(tail -n 3 "$err")"; return
    fi
    if ! "$TOOL" copy-world "$OUT" --name "$name" >"$b" 2>"$err" ||
            ! "$TOOL" copy-world "$OUT" --name "$name" --files >"$bf" 2>"$err"; then
        result FAIL "$name: copy-world of the exported folder failed: $(tail -n 3 "$err")"; return
    fi
    if ! cmp -s "$a" "$b"; then
        result FAIL "$name: values differ after export-world and copy-world"; return
    fi
    if ! cmp -s "$af" "$bf"; then
        result FAIL "$name: the world's files differ after export-world and copy-world --files"; return
    fi
    IFS='|' read -r want dims chunks kept < <(world_facts "$name")
    layout=$(check_layout "$OUT" "$kept")
    [ -z "$layout" ] || { result FAIL "$name: layout: $layout"; return; }
    if [ "$want" = new ] && [ -d "$OUT/region" ]; then
        result FAIL "$name: a world of the new layout exported with region/ at the root"; return
    fi
    if ! diff <(expected_files worlds "$name" "$want" | LC_ALL=C sort) <(actual_files "$OUT" | mcr_as_mca | LC_ALL=C sort) >"$err" &&
       ! diff <(expected_files worlds "$name" "$want" | LC_ALL=C sort) <(actual_files "$OUT" | LC_ALL=C sort) >/dev/null; then
        result FAIL "$name: files differ from slime_export_region/_external/slime_level and the files table: $(head -n 6 "$err" | tr '\n' ' ')"
        return
    fi
    # McRegion chunks go back to .mcr files, Anvil chunks to .mca files
    if [ -n "$(find -L "$src" -path '*region/r.*.mcr' | head -1)" ] && [ -z "$(find -L "$src" -path '*region/r.*.mca' | head -1)" ]; then
        [ -n "$(find "$OUT" -name '*.mcr')" ] && [ -z "$(find "$OUT" -path '*region/*.mca')" ] ||
            { result FAIL "$name: McRegion chunks not written as .mcr files"; return; }
    fi
    level=$(check_level "$OUT" worlds "$name")
    case $level in DV=*|no-level) ;; *) result FAIL "$name: $level"; return ;; esac
    if ! compare_tree "$name" "$src" "$OUT"; then
        result FAIL "$name: the exported folder differs from the source folder ($TREE)"; return
    fi
    result OK "$name: $dims dimension(s), $chunks chunks, $want layout, $TREE; identical values and world files, level.dat ${level}"
}

# check_level DIR TABLE WORLD: level.dat is gzip NBT with Data, version and,
# when the world's chunks have one, DataVersion; prints "DV=<n>" or a problem.
check_level() {
    local d=$1 hex out
    [ -f "$d/level.dat" ] || { echo "no-level"; return; }
    [ "$(od -An -N2 -tx1 "$d/level.dat" | tr -d ' ')" = 1f8b ] || { echo "level.dat is not gzip"; return; }
    gzip -t <"$d/level.dat" 2>/dev/null || { echo "level.dat fails gzip -t"; return; }
    hex=$(od -An -v -tx1 "$d/level.dat" | tr -d ' \n')
    out=$(psql_ -At -F '|' -v hex="$hex" -v t="$2" -v w="$3" <<'SQL' 2>&1
SELECT jsonb_typeof(j -> 'Data'), j -> 'Data' ->> 'version', coalesce(j -> 'Data' ->> 'DataVersion', 'none'),
       (SELECT max((slime_info(data) -> 'data_version' ->> 'max')::int) FROM :"t" WHERE world = :'w')
FROM (SELECT slime_nbt_to_json(decode(:'hex', 'hex')) AS j) s;
SQL
) || { echo "level.dat does not parse: $out"; return; }
    IFS='|' read -r typ ver dv chunkdv <<<"$out"
    [ "$typ" = object ] || { echo "level.dat has no Data compound"; return; }
    case $ver in 19132|19133) ;; *) echo "level.dat Data.version is '$ver'"; return ;; esac
    if [ -n "$chunkdv" ] && [ "$dv" = none ]; then
        echo "level.dat has no DataVersion but chunks have (up to $chunkdv)"; return
    fi
    echo "DV=$dv"
}

# ---- 1. world folders of the corpus ---------------------------------------------
# The corpus keeps files flat per source: <era>/<source>/<world>/r.X.Z.mca,
# entities-1.17plus/<source>/<world>/, poi/<source>/<world>/,
# level-dat/<source>/<world>/level.dat. World folders are put together from
# symlinks: <world>/DIM-1 is the nether, <world>/dimensions/<ns> the custom
# dimension <ns>:<ns> (Forge's layout), and the entities, POI and level.dat
# of the same <source>/<world> join it.
slime_log "world: world folders from the corpus"
declare -A WDIR=() WKEY=() WOPT=()
RFILE='^r\.-?[0-9]+\.-?[0-9]+\.mc[ar]$'

# region_files DIR: the r.X.Z.mc[ar] files directly in DIR.
region_files() { local f; for f in "$1"/*; do [[ ${f##*/} =~ $RFILE ]] && [ -f "$f" ] && echo "$f"; done; return 0; }

link_files() {  # link_files DEST FILE...
    mkdir -p "$1"; local d=$1; shift
    local f; for f; do ln -sf "$f" "$d/"; done
}

new_world() {   # new_world ID KEY: the world folder of ID
    if [ -z "${WDIR[$1]:-}" ]; then
        WDIR[$1]=$WORK/corpus/${1//\//__}; WKEY[$1]=$2; mkdir -p "${WDIR[$1]}"   # flat: no world inside another
    fi
}

for era_dir in "$CORPUS"/anvil-* "$CORPUS"/mcregion "$CORPUS"/damaged; do
    [ -d "$era_dir" ] || continue
    era=${era_dir##*/}
    while IFS= read -r d; do
        mapfile -t files < <(region_files "$d")
        [ ${#files[@]} -gt 0 ] || continue
        rel=${d#"$era_dir"/}; key=$rel; sub=region
        case $rel in
            */DIM-1|*/DIM1|*/DIM[0-9]*) key=${rel%/*}; sub=${rel##*/}/region ;;   # DIMn (n not ±1): Forge, not read
            */dimensions/*) key=${rel%%/dimensions/*}; ns=${rel##*/dimensions/}; sub=dimensions/$ns/$ns/region ;;
            */entities) key=${rel%/*}; sub=entities ;;
        esac
        new_world "$era/$key" "$key"
        [ "$era" = damaged ] && WOPT[$era/$key]=--lenient
        link_files "${WDIR[$era/$key]}/$sub" "${files[@]}"
    done < <(find "$era_dir" -type d | LC_ALL=C sort)
done

# join_extra ROOT KIND: entities/ or poi/ files of ROOT/<key> into the worlds of <key>
join_extra() {
    local root=$CORPUS/$1 kind=$2 d rel id found
    [ -d "$root" ] || return 0
    while IFS= read -r d; do
        mapfile -t files < <(region_files "$d")
        [ ${#files[@]} -gt 0 ] || continue
        rel=${d#"$root"/}; found=0
        for id in "${!WKEY[@]}"; do
            if [ "${WKEY[$id]}" = "$rel" ] && [ -z "${WOPT[$id]:-}" ]; then
                link_files "${WDIR[$id]}/$kind" "${files[@]}"; found=1
            fi
        done
        if [ $found = 0 ]; then new_world "$1/$rel" "$rel"; link_files "${WDIR[$1/$rel]}/$kind" "${files[@]}"; fi
    done < <(find "$root" -type d | LC_ALL=C sort)
}
join_extra entities-1.17plus entities
join_extra poi poi

# level.dat files: <key>/level.dat joins the worlds of <key>; any other .dat
# is the level.dat of a world of its own.
while IFS= read -r f; do
    rel=${f#"$CORPUS"/level-dat/}
    found=0
    if [ "${rel##*/}" = level.dat ]; then
        key=${rel%/level.dat}
        for id in "${!WKEY[@]}"; do
            if [ "${WKEY[$id]}" = "$key" ] && [ -z "${WOPT[$id]:-}" ]; then
                ln -sf "$f" "${WDIR[$id]}/level.dat"; found=1
            fi
        done
    fi
    if [ $found = 0 ]; then new_world "level-dat/$rel" "-"; ln -sf "$f" "${WDIR[level-dat/$rel]}/level.dat"; fi
done < <(find "$CORPUS/level-dat" -type f -name '*.dat' 2>/dev/null | LC_ALL=C sort)

t0=$SECONDS
n_worlds=0
while IFS= read -r id; do
    n_worlds=$((n_worlds + 1))
    roundtrip "$id" "${WDIR[$id]}" ${WOPT[$id]:-}
done < <(printf '%s\n' "${!WDIR[@]}" | LC_ALL=C sort)
echo "($n_worlds corpus world folders in $((SECONDS - t0))s)"

# ---- 2. generated worlds ---------------------------------------------------------
slime_log "world: generated worlds"
GEN=$WORK/gen
"$TOOL" gen-world "$GEN" --size 6 >/dev/null
roundtrip gen-world "$GEN"

# the same chunks as every kind of dimension: nether, end, custom and nested
GEN5=$WORK/gen5
"$TOOL" gen-world "$GEN5" --size 3 >/dev/null
mkdir -p "$GEN5/DIM-1" "$GEN5/DIM1" "$GEN5/dimensions/test/sky" "$GEN5/dimensions/test/sky/deep/er"
cp -r "$GEN5/region" "$GEN5/entities" "$GEN5/DIM-1/"
cp -r "$GEN5/poi" "$GEN5/DIM1/"
cp -r "$GEN5/region" "$GEN5/dimensions/test/sky/"
cp -r "$GEN5/entities" "$GEN5/dimensions/test/sky/deep/er/"
# and a Forge 1.12 dimension copy-world does not read (DIM7: not a vanilla
# dimension): its region file is one of the world's own files, kept byte for byte
mkdir -p "$GEN5/DIM7/region"
ln -s "$CORPUS/anvil-1.2-1.12/amulet-core/1_12_2_forge_twilight/DIM7/r.0.0.mca" "$GEN5/DIM7/region/"
roundtrip gen-dimensions "$GEN5"

# the same island written by 26.1 snapshot 6, in its layout: dimensions/
# minecraft/overworld/, players/, data/minecraft/ (gen-world --layout new)
GENN=$WORK/gen-new
"$TOOL" gen-world "$GENN" --size 4 --layout new >/dev/null 2>&1
roundtrip gen-world-26.1 "$GENN"

# ---- 2b. a 26.1-layout world from the corpus's newest chunks ------------------------
# The corpus's newest chunks (1.21.11, DataVersion 4671: Minestom's vanilla
# sample) under dimensions/minecraft/overworld/, the 26.1 snapshot 6
# level.dat (DataVersion 4774, mcaselector), and the players, maps and
# data pack of a 26.1 gen-world: exported in the new layout, as level.dat's
# DataVersion calls for, though its chunks are older (the game upgrades
# chunks when it loads them).
slime_log "world: a 26.1 world from the corpus's newest chunks; layouts forced"
W26=$WORK/corpus-26.1
mkdir -p "$W26/dimensions/minecraft/overworld/region"
for f in "$CORPUS"/anvil-1.18plus/minestom/anvil_vanilla_sample/r.*.mca; do ln -s "$f" "$W26/dimensions/minecraft/overworld/region/"; done
ln -s "$CORPUS/level-dat/mcaselector/generator-level.dat" "$W26/level.dat"
cp -r "$GENN/players" "$GENN/data" "$GENN/datapacks" "$W26/"
mkdir -p "$W26/dimensions/minecraft/overworld/data/minecraft"
cp "$GENN/dimensions/minecraft/overworld/data/minecraft/raids.dat" "$W26/dimensions/minecraft/overworld/data/minecraft/"
: >"$W26/session.lock"
roundtrip corpus-26.1 "$W26"
if [ -f "$OUT/dimensions/minecraft/overworld/region/r.2.1.mca" ] && [ ! -e "$OUT/region" ] && [ ! -e "$OUT/session.lock" ] &&
        [ -f "$OUT/players/data/736c696d-6500-0002-8100-000000000001.dat" ] && [ ! -e "$OUT/playerdata" ]; then
    result OK "corpus-26.1: region files in dimensions/minecraft/overworld/region/, players in players/data/, no region/ at the root, no session.lock"
else
    result FAIL "corpus-26.1: not in the new layout: $(cd "$OUT" && find . -maxdepth 4 | sort | head -20 | tr '\n' ' ')"
fi

# map_paths LAYOUT: the world files' paths moved as 26.1 snapshot 6 moved them (sed)
map_paths() {
    if [ "$1" = old ]; then
        sed -e 's|^players/data/|playerdata/|' -e 's|^players/stats/|stats/|' -e 's|^players/advancements/|advancements/|' \
            -e 's|^dimensions/minecraft/overworld/||' -e 's|^dimensions/minecraft/the_nether/|DIM-1/|' -e 's|^dimensions/minecraft/the_end/|DIM1/|'
    else
        sed -e 's|^playerdata/|players/data/|' -e 's|^stats/|players/stats/|' -e 's|^advancements/|players/advancements/|' \
            -e 's|^DIM-1/|dimensions/minecraft/the_nether/|' -e 's|^DIM1/|dimensions/minecraft/the_end/|'
    fi
}

# forced WORLD LAYOUT SOURCE: export-world.sh --layout LAYOUT gives the same
# values (the dimensions named alike in both layouts) and the world's files
# at their moved paths, byte for byte, with a warning.
forced() {
    local name=$1 layout=$2 src=$3
    new_out
    if ! bash clients/export-world.sh "$name" worlds "$OUT" --layout "$layout" 2>"$WORK/err"; then
        result FAIL "$name --layout $layout: $(tail -n 3 "$WORK/err")"; return
    fi
    if ! grep -q "warning: the $layout layout (--layout) for a world of DataVersion" "$WORK/err"; then
        result FAIL "$name --layout $layout: no warning that the layout is not the DataVersion's"; return
    fi
    if ! "$TOOL" copy-world "$OUT" --name "$name" 2>/dev/null | cmp -s - <("$TOOL" copy-world "$src" --name "$name" 2>/dev/null); then
        result FAIL "$name --layout $layout: values differ from the source folder's"; return
    fi
    if ! diff <(psql_ -At -F ' ' -v w="$name" <<<"SELECT path, md5(data) FROM worlds_files WHERE world = :'w' AND path <> 'level.dat'" |
                map_paths "$layout" | LC_ALL=C sort) \
              <(actual_files "$OUT" | grep -vE '^level\.dat |(^|/)(region|entities|poi)/[rc]\.-?[0-9]+\.-?[0-9]+\.mc[acr] ' | LC_ALL=C sort) >"$WORK/err"; then
        result FAIL "$name --layout $layout: world files not where the layout puts them: $(head -n 4 "$WORK/err" | tr '\n' ' ')"; return
    fi
    result OK "$name --layout $layout: $(cd "$OUT" && find . -type f | wc -l) files, the same values, world files moved with their folders ($(cd "$OUT" && ls -d playerdata players 2>/dev/null | tr '\n' ' '))"
}
forced gen-world-26.1 old "$GENN"
forced gen-world new "$GEN"

# a folder with the overworld in both layouts is refused, naming both
BOTH=$WORK/both
mkdir -p "$BOTH/dimensions/minecraft/overworld"
cp -r "$GEN/region" "$BOTH/"
cp -r "$GEN/region" "$BOTH/dimensions/minecraft/overworld/"
if "$TOOL" copy-world "$BOTH" >/dev/null 2>"$WORK/err"; then
    result FAIL "the overworld in both layouts: copy-world went ahead"
elif grep -q "holds the overworld in both layouts: region/, entities/ or poi/ at its root (before 26.1) and dimensions/minecraft/overworld/ (26.1 on)" "$WORK/err"; then
    result OK "the overworld in both layouts: refused ($(cut -c1-120 "$WORK/err")...)"
else
    result FAIL "the overworld in both layouts: $(cat "$WORK/err")"
fi

# ---- 2c. a world's own data in SQL, and level.dat --------------------------------------
slime_log "world: a world's own data in SQL; level.dat"
# every player's inventory, in either layout (the README's query)
inv=$(psql_ -At -F ' ' <<'SQL'
SELECT f.world, substring(f.path FROM '([0-9a-f-]{36})\.dat$'), (i -> 'Slot' ->> 'byte')::int, i ->> 'id',
       coalesce(i ->> 'count', i -> 'Count' ->> 'byte')
  FROM worlds_files f, jsonb_array_elements(slime_file_json(f.path, f.data) -> 'Inventory') i
 WHERE f.path ~ '^(playerdata|players/data)/[^/]+\.dat$' AND f.world IN ('gen-world', 'gen-world-26.1')
 ORDER BY 1, 3;
SQL
)
want_inv="gen-world 736c696d-6500-0002-8100-000000000001 0 minecraft:diamond_pickaxe 1
gen-world 736c696d-6500-0002-8100-000000000001 1 minecraft:bread 5
gen-world 736c696d-6500-0002-8100-000000000001 2 minecraft:filled_map 1
gen-world 736c696d-6500-0002-8100-000000000001 9 minecraft:cobblestone 64
gen-world-26.1 736c696d-6500-0002-8100-000000000001 0 minecraft:diamond_pickaxe 1
gen-world-26.1 736c696d-6500-0002-8100-000000000001 1 minecraft:bread 5
gen-world-26.1 736c696d-6500-0002-8100-000000000001 2 minecraft:filled_map 1
gen-world-26.1 736c696d-6500-0002-8100-000000000001 9 minecraft:cobblestone 64"
if [ "$inv" = "$want_inv" ]; then
    result OK "every player's inventory from SQL, in both layouts (playerdata/ and players/data/): 8 item stacks"
else
    result FAIL "players' inventories: $inv"
fi
# every NBT and JSON file of every world imported reads as JSON
read_all=$(psql_ -At -F ' ' -c "SELECT slime_file_kind(path), count(*), count(slime_file_json(path, data)) FROM worlds_files GROUP BY 1 ORDER BY 1" 2>&1)
if ! grep -q '^nbt ' <<<"$read_all" || awk '$1 != "bytes" && $2 != $3 { bad = 1 } END { exit !bad }' <<<"$read_all"; then
    result FAIL "slime_file_json over every world file: $read_all"
else
    result OK "slime_file_json over every world file of $(psql_ -At -c "SELECT count(DISTINCT world) FROM worlds_files") worlds: $(tr '\n' ';' <<<"$read_all")"
fi
# level.dat: the world compound changed in SQL wins over the bytes kept for a
# level.dat another encoder wrote (Minestom's), with a warning; kept bytes
# are given back only while they hold the world compound
mw=$(psql_ -At -c "SELECT world FROM worlds_files WHERE path = 'level.dat' AND world LIKE '%minestom/anvil_vanilla_sample' LIMIT 1")
if [ -n "$mw" ]; then
    psql_ -v w="$mw" <<'SQL'
INSERT INTO worlds SELECT 'changed-level', dimension,
    slime_with_level(data, slime_json_to_nbt(jsonb_set(slime_nbt_to_json(slime_level(data)), '{Data,LevelName}', '"renamed"')))
  FROM worlds WHERE world = :'w';
INSERT INTO worlds_files SELECT 'changed-level', path, data FROM worlds_files WHERE world = :'w';
SQL
    new_out
    if bash clients/export-world.sh changed-level worlds "$OUT" 2>"$WORK/err" &&
            grep -q "level.dat kept among the world's files holds another compound than the world's" "$WORK/err" &&
            [ "$(md5sum <"$OUT/level.dat" | cut -d' ' -f1)" = "$(psql_ -At -c "SELECT md5(slime_level(data)) FROM worlds WHERE world = 'changed-level'")" ] &&
            [ "$(psql_ -At -c "SELECT slime_nbt_to_json(slime_level(data)) -> 'Data' ->> 'LevelName' FROM worlds WHERE world = 'changed-level'")" = renamed ]; then
        result OK "level.dat changed with slime_with_level: written from the world compound (slime_level's bytes), not the kept file, with a warning"
    else
        result FAIL "level.dat changed with slime_with_level: $(cat "$WORK/err")"
    fi
fi

# ---- 3. the chunk store: reference form refused, slime_resolve exported --------
slime_log "world: reference-form values"
psql_ -c "INSERT INTO saves SELECT * FROM worlds WHERE world = 'gen-dimensions'"
refs=$(psql_ -At -c "SELECT min((slime_info(data) ->> 'store_refs')::int) FROM saves WHERE world = 'gen-dimensions'")
new_out
if psql_ -c "\\copy (SELECT world, dimension, data FROM saves WHERE world = 'gen-dimensions' ORDER BY dimension) TO STDOUT (FORMAT binary)" |
        "$TOOL" export-world "$OUT" 2>"$WORK/err"; then
    result FAIL "reference form: export-world accepted values held in the chunk store"
elif [ "$refs" -gt 0 ] && grep -q "row 1 (world 'gen-dimensions', dimension 'minecraft:overworld').*chunk.*store.*slime_resolve(data)" "$WORK/err" &&
        [ ! -e "$OUT" ]; then
    result OK "reference form ($refs chunks by reference per value): refused naming the row, nothing written: $(grep -o 'row 1.*' "$WORK/err" | head -1 | cut -c1-150)..."
else
    result FAIL "reference form: wrong message or files left: $(cat "$WORK/err")"
fi
new_out
if bash clients/export-world.sh gen-dimensions saves "$OUT" 2>"$WORK/err" &&
        "$TOOL" copy-world "$OUT" --name gen-dimensions >"$WORK/b.copy" 2>/dev/null &&
        "$TOOL" copy-world "$GEN5" --name gen-dimensions 2>/dev/null | cmp -s - "$WORK/b.copy"; then
    result OK "reference form: clients/export-world.sh (slime_resolve) gives the same values as the source folder"
else
    result FAIL "reference form through slime_resolve: $(tail -n 3 "$WORK/err")"
fi

# compare_db TABLE WORLD COPYFILE: the stream's rows equal the table's, byte for byte.
compare_db() {
    psql_ -c "TRUNCATE again" -c "\\copy again(world, dimension, data) FROM '$3' WITH (FORMAT binary)" &&
    [ "$(psql_ -At -v t="$1" -v w="$2" <<<"
        SELECT count(*) FROM (SELECT * FROM :\"t\" WHERE world = :'w') x
        FULL JOIN again y USING (world, dimension)
        WHERE x.data IS NULL OR y.data IS NULL OR x.data::bytea <> y.data::bytea
           OR slime_content_hash(x.data) <> slime_content_hash(y.data)")" = 0 ]
}

# ---- 4. a chunk too big for a region file (c.X.Z.mcc) -------------------------------
slime_log "world: external chunks"
# chunk (3,4): its NBT plus 1.6 MB of md5 bytes (incompressible): > 255 sectors
psql_ <<'SQL'
INSERT INTO worlds
SELECT 'gen-big', dimension,
       CASE WHEN dimension = 'minecraft:overworld' THEN
           slime_put_chunk(data, 3, 4, slime_json_to_nbt(slime_chunk_json(data, 3, 4)
               || jsonb_build_object('SlimeBig', jsonb_build_object('byte_array',
                      (SELECT jsonb_agg(get_byte(b, i) - 128) FROM (SELECT decode(string_agg(md5(g::text), ''), 'hex') AS b
                        FROM generate_series(1, 100000) g) s, generate_series(0, 1599999) i)))))
       ELSE data END
FROM worlds WHERE world = 'gen-world';
SQL
new_out
if bash clients/export-world.sh gen-big worlds "$OUT" 2>"$WORK/err" &&
        [ -f "$OUT/region/c.3.4.mcc" ] &&
        "$TOOL" copy-world "$OUT" --name gen-big >"$WORK/b.copy" 2>/dev/null &&
        compare_db worlds gen-big "$WORK/b.copy" &&
        diff <(expected_files worlds gen-big old | LC_ALL=C sort) <(actual_files "$OUT") >/dev/null &&
        [ -z "$(check_layout "$OUT")" ]; then
    result OK "external chunk: region/c.3.4.mcc ($(stat -c %s "$OUT/region/c.3.4.mcc") bytes) written, read back identical, equal to slime_export_external"
else
    result FAIL "external chunk: $(tail -n 3 "$WORK/err")"
fi

# ---- 5. refusals ---------------------------------------------------------------------
slime_log "world: refusals"
# export_fails WHAT PATTERN COMMAND...: the export fails with PATTERN, OUT never appears
export_fails() {
    local what=$1 pat=$2
    shift 2
    new_out
    if "$@" 2>"$WORK/err" >/dev/null; then
        result FAIL "$what: export-world succeeded"
    elif ! grep -Eq -- "$pat" "$WORK/err"; then
        result FAIL "$what: message does not match '$pat': $(cat "$WORK/err")"
    elif [ -e "$OUT" ]; then
        result FAIL "$what: $OUT was left behind"
    else
        result OK "$what: refused ($(grep -m1 -Eo -- "$pat.*" "$WORK/err" | cut -c1-110))"
    fi
}
stream() { psql_ -c "\\copy ($1) TO STDOUT (FORMAT binary)"; }
export_odd() { stream "SELECT world, dimension, data FROM odd WHERE world = '$1'" | "$TOOL" export-world "$OUT"; }

v="(SELECT data FROM worlds WHERE world = 'gen-world' AND dimension = 'minecraft:overworld')"
for name in '../../evil' 'x:../y' 'x:a/../../b' '..:y' 'x:.hidden' 'x:a//b' 'x:' ':y' 'x:a/region' \
            'x/y:z' 'x:a\b' 'x:1/2/3/4/5/6/7/8/9'; do
    psql_ -v n="$name" <<<"INSERT INTO odd VALUES ('unsafe ' || :'n', :'n', $v)"
    export_fails "dimension name '$name'" "row 1 .*unsafe dimension name" export_odd "unsafe $name"
done
psql_ -c "INSERT INTO odd VALUES ('dup', 'minecraft:overworld', $v), ('dup', 'minecraft:overworld', $v)"
export_fails "the same dimension twice" "row 2 .*comes twice" export_odd dup
psql_ -c "INSERT INTO odd VALUES ('nulldata', 'minecraft:overworld', NULL)"
export_fails "a NULL value" "row 1 .*data is NULL" export_odd nulldata

two_worlds() {   # two_worlds [export-world options]
    stream "SELECT world, dimension, data FROM worlds WHERE world IN ('gen-world', 'gen-big') ORDER BY world, dimension" |
        "$TOOL" export-world "$OUT" "$@"
}
export_fails "two worlds in one stream" "more than one world.*--world" two_worlds
new_out
if two_worlds --world gen-world 2>/dev/null &&
        "$TOOL" copy-world "$OUT" --name gen-world 2>/dev/null | cmp -s - <("$TOOL" copy-world "$GEN" --name gen-world 2>/dev/null); then
    result OK "two worlds in one stream with --world: the one named exported"
else
    result FAIL "--world"
fi

stream "SELECT world, dimension, slime_resolve(data) FROM worlds WHERE world = 'gen-dimensions' ORDER BY dimension" >"$WORK/full.copy"
size=$(stat -c %s "$WORK/full.copy")
cut_stream() { head -c "$1" "$WORK/full.copy" | "$TOOL" export-world "$OUT"; }
for cut in 5 19 $((size / 3)) $((size - 3)) $((size - 1)); do
    export_fails "a stream cut at byte $cut of $size" "cut short|ends at byte" cut_stream "$cut"
done
not_copy() { echo hello | "$TOOL" export-world "$OUT"; }
export_fails "not a COPY stream" "not a binary COPY stream" not_copy

# the stream of the world's files (--with-files): missing, cut short, of
# another world, with a path that leaves the folder or is not a file the
# tool writes; each refused with nothing written
with_files() {   # with_files FILES_QUERY: gen-world's rows, then the files the query gives
    psql_ -c "\\copy (SELECT world, dimension, slime_resolve(data) FROM worlds WHERE world = 'gen-world') TO STDOUT (FORMAT binary)" \
          -c "\\copy ($1) TO STDOUT (FORMAT binary)" | "$TOOL" export-world "$OUT" --with-files
}
no_files() { stream "SELECT world, dimension, data FROM worlds WHERE world = 'gen-world'" | "$TOOL" export-world "$OUT" --with-files; }
export_fails "--with-files and no files stream" "not followed by a stream of its files" no_files
stream "SELECT world, dimension, data FROM worlds WHERE world = 'gen-world'" >"$WORK/rows.copy"
stream "SELECT world, path, data FROM worlds_files WHERE world = 'gen-world' ORDER BY path" >"$WORK/files.copy"
cut_files() { { cat "$WORK/rows.copy"; head -c $(($(stat -c %s "$WORK/files.copy") - 2)) "$WORK/files.copy"; } | "$TOOL" export-world "$OUT" --with-files; }
export_fails "a files stream cut short" "world's files ends at byte .* cut short" cut_files
export_fails "a files stream of another world" "files row 1 is of world 'gen-dimensions'" \
    with_files "SELECT world, path, data FROM worlds_files WHERE world = 'gen-dimensions' LIMIT 1"
for bad in '../escape.dat' 'data/../../x' '/etc/x' 'a//b' 'data/./x'; do
    export_fails "a world file at '$bad'" "files row 1: path .* cannot be a world file's" \
        with_files "SELECT 'gen-world', '$bad', '\\x00'::bytea"
done
export_fails "session.lock among the world files" "session.lock is not a file export-world writes" \
    with_files "SELECT 'gen-world', 'session.lock', '\\x00'::bytea"
new_out
if with_files "SELECT 'gen-world', 'region/r.0.0.mca', '\\x00'::bytea UNION ALL SELECT 'gen-world', 'icon.png', '\\x89504e47'::bytea" 2>"$WORK/err" &&
        grep -q "the world file region/r.0.0.mca is replaced by the region file the table's chunks make there" "$WORK/err" &&
        [ "$(stat -c %s "$OUT/region/r.0.0.mca")" -gt 8192 ] && [ "$(head -c 4 "$OUT/icon.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ]; then
    result OK "a world file where the table's chunks make a region file gives way to it, with a warning; the others are written"
else
    result FAIL "a world file at a region file's place: $(cat "$WORK/err")"
fi
# copy-world --files: a folder inside itself (a symlink loop) refused, --lenient skips it
LOOP=$WORK/loop
"$TOOL" gen-world "$LOOP" --size 1 >/dev/null 2>&1
ln -s .. "$LOOP/data/up"
if "$TOOL" copy-world "$LOOP" --files >/dev/null 2>"$WORK/err"; then
    result FAIL "copy-world --files of a folder with a symlink loop: went ahead"
elif grep -q "data/up: a folder inside itself (a symlink loop) (--lenient skips it)" "$WORK/err" &&
        "$TOOL" copy-world "$LOOP" --files --lenient >/dev/null 2>"$WORK/err" && grep -q "data/up: a folder inside itself.*: skipped" "$WORK/err"; then
    result OK "copy-world --files of a folder with a symlink loop: refused naming it; --lenient skips it"
else
    result FAIL "copy-world --files, symlink loop: $(cat "$WORK/err")"
fi

# ---- 6. a non-empty folder, --force, session.lock ------------------------------------
slime_log "world: --force"
new_out
FORCE_DIR=$OUT
# gen-force: gen-world plus a chunk in region (2,2); exported, then that chunk deleted
psql_ -c "INSERT INTO worlds SELECT 'gen-force', dimension,
              CASE WHEN dimension = 'minecraft:overworld'
                   THEN slime_put_chunk(data, 70, 70, slime_chunk_relocate(slime_chunk_nbt(data, 1, 1), 70, 70)) ELSE data END
          FROM worlds WHERE world = 'gen-dimensions'"
bash clients/export-world.sh gen-force worlds "$FORCE_DIR" 2>/dev/null
mkdir -p "$FORCE_DIR/playerdata"; echo keep >"$FORCE_DIR/playerdata/someone.dat"
psql_ -c "UPDATE worlds SET data = slime_delete_chunk(data, 70, 70) WHERE world = 'gen-force' AND dimension = 'minecraft:overworld'"
before=$(cd "$FORCE_DIR" && find . -type f -exec md5sum {} + | sort)
if bash clients/export-world.sh gen-force worlds "$FORCE_DIR" 2>"$WORK/err"; then
    result FAIL "non-empty folder without --force: export went ahead"
elif grep -q "is not empty.*--force" "$WORK/err" && [ "$(cd "$FORCE_DIR" && find . -type f -exec md5sum {} + | sort)" = "$before" ]; then
    result OK "non-empty folder without --force: refused, folder unchanged"
else
    result FAIL "non-empty folder without --force: $(cat "$WORK/err")"
fi
if [ -f "$FORCE_DIR/region/r.2.2.mca" ] &&
        bash clients/export-world.sh gen-force worlds "$FORCE_DIR" --force 2>"$WORK/err" &&
        [ ! -e "$FORCE_DIR/region/r.2.2.mca" ] && [ "$(cat "$FORCE_DIR/playerdata/someone.dat")" = keep ] &&
        "$TOOL" copy-world "$FORCE_DIR" --name gen-force >"$WORK/b.copy" 2>/dev/null &&
        compare_db worlds gen-force "$WORK/b.copy"; then
    result OK "--force: files replaced, stale region/r.2.2.mca removed, playerdata kept, values identical"
else
    result FAIL "--force: $(tail -n 3 "$WORK/err")"
fi
# a server holds an fcntl lock on session.lock (Java FileChannel.tryLock); struct flock of Linux x86-64/arm64
: >"$FORCE_DIR/session.lock"
perl -MFcntl -e 'open(my $f, "+<", $ARGV[0]) or die; my $l = pack("s s x4 q q l x4", F_WRLCK, 0, 0, 0, 0); fcntl($f, F_SETLK, $l) or die "lock: $!"; print "locked\n"; $| = 1; sleep 60' \
    "$FORCE_DIR/session.lock" >"$WORK/lock.out" 2>&1 &
lock_pid=$!
for _ in $(seq 50); do grep -q locked "$WORK/lock.out" 2>/dev/null && break; sleep 0.1; done
if bash clients/export-world.sh gen-force worlds "$FORCE_DIR" --force 2>"$WORK/err"; then
    result FAIL "session.lock held: export went ahead"
elif grep -q "session.lock is locked by process $lock_pid" "$WORK/err"; then
    result OK "session.lock held by a running server (pid $lock_pid): refused"
else
    result FAIL "session.lock: $(cat "$WORK/err") $(cat "$WORK/lock.out")"
fi
kill "$lock_pid" 2>/dev/null || true
wait "$lock_pid" 2>/dev/null || true

# ---- 7. slime.so loaded after the JIT provider -------------------------------------------
# llvmjit pulls in libbsd, whose stringlist sl_free once took the place of the
# core's sl_free (fixed by linking with -Bsymbolic): a fresh session that
# JIT-compiles a query before the first slime call, then frees a frame.
if [ "$(psql_ -At -c "SELECT pg_jit_available()")" = t ]; then
    if out=$(psql_ -At <<'SQL' 2>&1
SET jit = on; SET jit_above_cost = 0; SET jit_inline_above_cost = 0; SET jit_optimize_above_cost = 0;
SELECT count(*) FROM generate_series(1, 10) g WHERE g + 1 > 2;
SELECT count(*) FROM worlds w, slime_regions(w.data) g, slime_export_external(w.data, g.rx, g.rz, 'region') e
 WHERE w.world = 'gen-big';
SQL
    ); then
        result OK "JIT-compiled session, then slime functions: no crash ($(echo $out))"
    else
        result FAIL "JIT-compiled session, then slime functions: $out"
    fi
else
    echo "skip:   JIT check: pg_jit_available() is false"
fi

# ---- 8. which level.dat ------------------------------------------------------------------
slime_log "world: level.dat choices"
lvl="(SELECT slime_level(data) FROM worlds WHERE world = 'gen-world' AND dimension = 'minecraft:overworld')"
other="(SELECT slime_level(data) FROM worlds WHERE dimension = 'minecraft:overworld' AND world <> 'gen-world'
         AND slime_level(data) IS NOT NULL ORDER BY world LIMIT 1)"
chunks="(SELECT slime_with_level(data, NULL) FROM worlds WHERE world = 'gen-world' AND dimension = 'minecraft:overworld')"
psql_ -c "INSERT INTO odd VALUES
    ('nether-only', 'minecraft:overworld', $chunks), ('nether-only', 'minecraft:the_nether', slime_with_level($chunks, $lvl)),
    ('two-others', 'minecraft:the_nether', slime_with_level($chunks, $lvl)), ('two-others', 'minecraft:the_end', slime_with_level($chunks, $other)),
    ('overworld-wins', 'minecraft:the_end', slime_with_level($chunks, $other)), ('overworld-wins', 'minecraft:overworld', slime_with_level($chunks, $lvl)),
    ('no-level', 'minecraft:overworld', $chunks)"
want=$(psql_ -At -c "SELECT md5($lvl)")
new_out
if export_odd nether-only 2>"$WORK/err" && [ "$(md5sum <"$OUT/level.dat" | cut -d' ' -f1)" = "$want" ] &&
        grep -Eq "level.dat comes from row [0-9]+ \(minecraft:the_nether\)" "$WORK/err"; then
    result OK "level.dat only in the nether's value: written from it, with a note"
else
    result FAIL "level.dat only in the nether: $(cat "$WORK/err")"
fi
new_out
if export_odd overworld-wins 2>"$WORK/err" && [ "$(md5sum <"$OUT/level.dat" | cut -d' ' -f1)" = "$want" ] &&
        grep -Eq "row [0-9]+ \(minecraft:the_end\) holds a world compound other than the overworld's" "$WORK/err"; then
    result OK "level.dat differs between overworld and end: the overworld's, with a warning"
else
    result FAIL "overworld's level.dat: $(cat "$WORK/err")"
fi
export_fails "different level.dat in nether and end, none in the overworld" "cannot choose level.dat" export_odd two-others
new_out
if export_odd no-level 2>"$WORK/err" && [ ! -e "$OUT/level.dat" ] && grep -q "no level.dat written" "$WORK/err"; then
    result OK "no world compound: no level.dat, with a warning"
else
    result FAIL "no world compound: $(cat "$WORK/err")"
fi

# ---- 6. a folder that is not a world -------------------------------------------------
# copy-world, clients/import-world.sh and test/demo.sh refuse it before anything is
# created or stopped, say what they looked for and where, and exit non-zero.
slime_log "world: not a world folder"
NOT=$WORK/not-a-world
mkdir -p "$NOT/saves/world"
echo "notes" >"$NOT/readme.txt"
want_msg="is not a world folder: it holds no level.dat, no region/, entities/ or poi/ folder, no DIM-1/ or DIM1/ with one of those, no dimensions/<namespace>/<name>/ with one, and no region files"
for d in "$NOT" "$NOT/saves"; do
    if "$TOOL" copy-world "$d" >/dev/null 2>"$WORK/err"; then
        result FAIL "copy-world of $d (no world): succeeded"
    elif grep -Eq -- "$want_msg" "$WORK/err" && ! "$TOOL" copy-world "$d" --check >/dev/null 2>&1; then
        result OK "copy-world and copy-world --check of ${d#"$WORK"/} refused: $(cut -c1-140 "$WORK/err")..."
    else
        result FAIL "copy-world of $d: $(cat "$WORK/err")"
    fi
done
if bash clients/import-world.sh --quiet "$NOT" not_a_world >/dev/null 2>"$WORK/err"; then
    result FAIL "import-world.sh of a folder that is not a world: exit 0"
elif grep -Eq -- "$want_msg" "$WORK/err" && [ -z "$(psql_ -At -c "SELECT to_regclass('not_a_world')")" ]; then
    result OK "import-world.sh of a folder that is not a world: exit non-zero, no table created"
else
    result FAIL "import-world.sh of a folder that is not a world: $(cat "$WORK/err")"
fi
# the demo checks the folder before it stops a previous demo's cluster: a
# recorded one (a stand-in env file) stays as it was
echo "export SLIME_PGTMP=/tmp/slime-pg.stand-in" >"$WORK/demo.env"
if SLIME_DEMO_ENV=$WORK/demo.env SLIME_DEMO_LOG=$WORK/demo.log bash test/demo.sh "$NOT" >"$WORK/said" 2>&1; then
    result FAIL "demo.sh of a folder that is not a world: exit 0"
elif grep -Eq -- "$want_msg" "$WORK/said" && [ -f "$WORK/demo.env" ] && ! grep -q "starting a throwaway cluster" "$WORK/said"; then
    result OK "demo.sh of a folder that is not a world: exit non-zero before the previous demo was stopped or a cluster started"
else
    result FAIL "demo.sh of a folder that is not a world: $(tail -n 5 "$WORK/said")"
fi
bare=$CORPUS/anvil-1.18plus/minestom/anvil_vanilla_sample
if "$TOOL" copy-world "$bare" --check >"$WORK/said" 2>&1 && grep -q "the folder itself as region/" "$WORK/said"; then
    result OK "a bare folder of region files is the overworld's region/: $(grep "the folder itself" "$WORK/said" | cut -c1-100)"
else
    result FAIL "a bare folder of region files: $(cat "$WORK/said")"
fi

# ---- 7. the tool's world files: values (.slimev), slime files (.slime), region files ----
# Every command taking a world tells the three apart by their bytes; other
# files are refused saying what they are; render keeps SQL's pixel cap.
slime_log "world: slimetool's world files"
TW=$WORK/toolworld
mkdir -p "$TW"
"$TOOL" gen-world "$TW/gw" >/dev/null 2>&1
tool_ok() {   # tool_ok WHAT COMMAND...: the command succeeds
    local what=$1; shift
    if "$@" >"$WORK/said" 2>&1; then result OK "$what"; else result FAIL "$what: $(cat "$WORK/said")"; fi
}
tool_refuses() {   # tool_refuses WHAT PATTERN... -- COMMAND...: fails, saying every PATTERN
    local what=$1 p; shift
    local want=()
    while [ "$1" != -- ]; do want+=("$1"); shift; done
    shift
    if "$@" >"$WORK/said" 2>&1; then
        result FAIL "$what: exit 0"
        return
    fi
    for p in "${want[@]}"; do
        grep -Eq -- "$p" "$WORK/said" || { result FAIL "$what: $(cat "$WORK/said")"; return; }
    done
    result OK "$what: $(head -n 1 "$WORK/said" | cut -c1-120)"
}
tool_ok "import-region of a generated region file to a value file" \
    "$TOOL" import-region --quiet "$TW/gw/region/r.0.0.mca" -o "$TW/a.slimev"
tool_ok "export-slime of a value file" "$TOOL" export-slime "$TW/a.slimev" -o "$TW/island.slime"
info_of() { "$TOOL" info "$1" 2>/dev/null | sed -E 's/, "(raw_bytes|stored_bytes|frames|has_level|hash)": [^,}]*//g'; }
if [ -n "$(info_of "$TW/a.slimev")" ] && [ "$(info_of "$TW/island.slime")" = "$(info_of "$TW/a.slimev")" ] &&
        "$TOOL" info "$TW/island.slime" 2>&1 >/dev/null | grep -q "slime file version 13, read into a value"; then
    result OK "info of the slime file export-slime wrote: the value's chunks, kinds, DataVersions and bounds"
else
    result FAIL "info of island.slime: $("$TOOL" info "$TW/island.slime" 2>&1)"
fi
if "$TOOL" export-slime "$TW/island.slime" -o "$TW/again.slime" >/dev/null 2>&1 && cmp -s "$TW/island.slime" "$TW/again.slime"; then
    result OK "export-slime of a slime file writes the same bytes again"
else
    result FAIL "export-slime of a slime file: not the same bytes"
fi
for f in "$TW/island.slime" "$TW/gw/region/r.0.0.mca" "$CORPUS/slime/newsky/skyblock.slime"; do
    [ -f "$f" ] || continue
    tool_ok "verify ${f#"$WORK"/}" "$TOOL" verify "$f"
    tool_ok "render ${f#"$WORK"/}" "$TOOL" render "$f" --quiet -o "$TW/map.png"
done
tool_ok "export-region of a slime file" "$TOOL" export-region "$TW/island.slime" 0 0 -o "$TW/r.0.0.mca"
if [ "$(info_of "$TW/r.0.0.mca")" = "$(info_of "$TW/a.slimev")" ]; then
    result OK "info of a region file: the value import-region makes of it"
else
    result FAIL "info of a region file: $(info_of "$TW/r.0.0.mca")"
fi
tool_refuses "info of level.dat" "is gzip-compressed data .*not a world" "hint: a level.dat belongs in a world folder" -- "$TOOL" info "$TW/gw/level.dat"
tool_refuses "export-region of a region file" "neither a slime value nor a slime file" \
    "hint: region files are read by slimetool import-region" -- "$TOOL" export-region "$TW/r.0.0.mca" 0 0 -o "$TW/x.mca"
tool_refuses "import-region of a file that does not exist names the file" "slimetool: $TW/nosuch/r.0.0.mca: No such file" -- \
    "$TOOL" import-region "$TW/nosuch/r.0.0.mca" -o "$TW/x.slimev"
tool_refuses "import-slime of a value file" "is a slime value .*not a slime file" -- "$TOOL" import-slime "$TW/a.slimev" -o "$TW/x.slimev"
cp "$TW/r.0.0.mca" "$TW/unnamed.bin"
tool_refuses "render of a region file under another name" "not named r.X.Z.mca" "give --rx and --rz" -- "$TOOL" render "$TW/unnamed.bin" -o "$TW/x.png"
tool_ok "render of a region file under another name with --rx/--rz" \
    "$TOOL" render "$TW/unnamed.bin" --rx 0 --rz 0 --quiet -o "$TW/x.png"
# 80 x 80 blocks at scale 64: 26214400 pixels, over slime.max_render_pixels' default 4096^2
tool_refuses "render over SQL's pixel cap" "exceeds the cap of 16777216 pixels" "hint: --max-pixels" -- "$TOOL" render "$TW/a.slimev" --scale 64 -o "$TW/big.png"
tool_ok "render over the cap with --max-pixels" "$TOOL" render "$TW/a.slimev" --scale 64 --max-pixels 26214400 --quiet -o "$TW/big.png"

# ---- 8. the world scripts' first-hour messages -------------------------------
slime_log "world: import-world.sh twice, export-world.sh of a world not there"
bash clients/import-world.sh --quiet "$TW/gw" twice island >/dev/null 2>&1
tool_refuses "import-world.sh of a world already in the table" \
    "world 'island' is already in twice \(minecraft:overworld, [0-9]+ files\); nothing was stored" \
    "to replace it, delete it first \(DELETE FROM twice WHERE world = 'island'; DELETE FROM twice_files WHERE world = 'island'\)" -- \
    bash clients/import-world.sh --quiet "$TW/gw" twice island
if grep -q "duplicate key" "$WORK/said"; then result FAIL "import-world.sh twice: a raw duplicate key error"; fi
tool_refuses "export-world.sh of a world the table does not hold" \
    "twice has no rows of world 'NoSuch' \(its worlds include 'island'\); nothing was written" -- \
    bash clients/export-world.sh NoSuch twice "$TW/nosuch"
if [ -e "$TW/nosuch" ]; then result FAIL "export-world.sh of a world not there created its folder"; fi

finish
