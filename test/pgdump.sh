#!/usr/bin/env bash
# test/pgdump.sh — proves slime values survive pg_dump/pg_restore and binary
# COPY byte for byte.
#
# Builds a source database from real corpus region files (read server-side),
# records per value slime_content_hash() and md5(value::bytea), then copies
# the data four ways into fresh databases and compares every value:
#   plain     pg_dump -Fp | psql
#   custom    pg_dump -Fc + pg_restore
#   directory pg_dump -Fd -j2 + pg_restore -j2
#   binary    COPY ... TO file (FORMAT binary) + COPY FROM into fresh tables
# Uses the cluster in the PG* environment (test/lib.sh slime_cluster_start);
# when none is set, starts a throwaway one itself.  Exit 1 on any mismatch.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
    slime_log "pgdump: no PGHOST/PGPORT set, starting a throwaway cluster"
    slime_cluster_start
fi
CORPUS=$(slime_corpus)

SRC=slime_dump_src
TARGETS=(slime_dump_plain slime_dump_custom slime_dump_dir slime_dump_copy)

# Work dir for dump files; owned by postgres so server-side COPY can write.
WORK=$(mktemp -d /tmp/slime-dump.XXXXXX)
chmod 755 "$WORK"
chown postgres:postgres "$WORK"
drop_dbs() { local d; for d in "$SRC" "${TARGETS[@]}"; do dropdb --if-exists "$d" 2>/dev/null || true; done; }
slime_on_exit 'drop_dbs; rm -rf "$WORK"'
drop_dbs

sql_lit() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }     # SQL string literal
readfile() { printf 'pg_read_binary_file(%s)' "$(sql_lit "$CORPUS/$1")"; }

# Region files of every era: "rel/path/r.X.Z.mc?[|entities rel path]".
REGIONS=(
    mcregion/mc-block-distribution/r.-1.0.mcr
    mcregion/pymclevel/PyTestWorld/r.-1.-1.mcr
    anvil-1.2-1.12/prismarine-provider-anvil/1.8.9/r.-1.0.mca
    anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca
    anvil-1.13-1.17/mcaselector/anvil113/r.0.0.mca
    anvil-1.13-1.17/mcaselector/anvil115/r.0.0.mca
    anvil-1.13-1.17/amulet-core/1_16_5_forge_twilight/dimensions/twilightforest/r.-2.-1.mca
    "anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca|entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca"
    anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca
    anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
)
# Three regions of one world, merged with slime_agg; then with its level.dat.
MERGE_DIR=anvil-1.18plus/minestom/anvil_vanilla_sample
LEVEL_DAT=level-dat/minestom/anvil_vanilla_sample/level.dat

DDL="
CREATE TABLE worlds(id int PRIMARY KEY, name text, world slime);
CREATE TABLE pairs(id int PRIMARY KEY, a slime, b slime);"

# Every value's content hash and stored-bytes md5, one row per (table,id,col).
HASHES="
SELECT 'worlds'::text AS tbl, id, 'world'::text AS col,
       encode(slime_content_hash(world), 'hex') AS chash, md5(world::bytea) AS md5 FROM worlds
UNION ALL
SELECT 'pairs', id, 'a', encode(slime_content_hash(a), 'hex'), md5(a::bytea) FROM pairs
UNION ALL
SELECT 'pairs', id, 'b', encode(slime_content_hash(b), 'hex'), md5(b::bytea) FROM pairs"

# ---- 1. source database ----------------------------------------------------
slime_log "pgdump: building $SRC from ${#REGIONS[@]} corpus regions + merged + level.dat"
{
    echo "CREATE EXTENSION slime;"
    echo "$DDL"
    id=0
    for spec in "${REGIONS[@]}"; do
        rel=${spec%%|*}; ent=; files=("$rel")
        if [ "$rel" != "$spec" ]; then ent=${spec#*|}; files+=("$ent"); fi
        for f in "${files[@]}"; do
            [ -f "$CORPUS/$f" ] || { echo "pgdump: corpus file missing: $CORPUS/$f" >&2; exit 1; }
        done
        base=$(basename "$rel"); xz=${base#r.}; xz=${xz%.*}      # "X.Z"
        rx=${xz%.*}; rz=${xz#*.}
        entarg=NULL; [ -n "$ent" ] && entarg=$(readfile "$ent")
        id=$((id + 1))
        echo "INSERT INTO worlds VALUES ($id, $(sql_lit "$rel"),
              slime_import_region($(readfile "$rel"), $rx, $rz, $entarg));"
    done
    [ -f "$CORPUS/$LEVEL_DAT" ] || { echo "pgdump: corpus file missing: $CORPUS/$LEVEL_DAT" >&2; exit 1; }
    values=
    for f in "$CORPUS/$MERGE_DIR"/r.*.mca; do
        base=$(basename "$f"); xz=${base#r.}; xz=${xz%.mca}
        values+="${values:+,}($(sql_lit "$f"), ${xz%.*}, ${xz#*.})"
    done
    echo "INSERT INTO worlds
          SELECT 100, $(sql_lit "$MERGE_DIR (slime_agg)"),
                 slime_agg(slime_import_region(pg_read_binary_file(p), rx, rz) ORDER BY p)
          FROM (VALUES $values) v(p, rx, rz);"
    echo "INSERT INTO worlds
          SELECT 101, $(sql_lit "$MERGE_DIR + $LEVEL_DAT"),
                 slime_with_level(world, $(readfile "$LEVEL_DAT")) FROM worlds WHERE id = 100;"
    # second table: two slime columns, including a NULL
    echo "INSERT INTO pairs SELECT w1.id, w1.world, w2.world
          FROM worlds w1 LEFT JOIN worlds w2 ON w2.id = w1.id + 5 WHERE w1.id <= 5 OR w1.id = 100;"
    echo "ANALYZE;"
} >"$WORK/src.sql"
createdb "$SRC"
slime_psql -d "$SRC" -f "$WORK/src.sql"

# (\copy must be on one line)
slime_psql -d "$SRC" -c "\\copy ($(tr '\n' ' ' <<<"$HASHES")) TO '$WORK/hashes.tsv'"
NVAL=$(wc -l <"$WORK/hashes.tsv")
slime_psql -d "$SRC" -At -c "SELECT id, name, slime_info(world)->>'chunks' AS chunks FROM worlds ORDER BY id" |
    sed 's/^/  source: /'
bad_src=$(slime_psql -d "$SRC" -At -c "SELECT count(*) FROM worlds WHERE slime_content_hash(world) IS NULL OR md5(world::bytea) IS NULL")
if [ "$NVAL" = 0 ] || [ "$bad_src" != 0 ]; then echo "pgdump: source hashes incomplete" >&2; exit 1; fi

# ---- 2. compare a target database with the recorded hashes -----------------
FAIL=0
compare() {     # compare METHOD DB
    local method=$1 db=$2 res same total bad nullinfo
    res=$(slime_psql -d "$db" -At <<SQL
CREATE TEMP TABLE expect(tbl text, id int, col text, chash text, md5 text);
\copy expect FROM '$WORK/hashes.tsv'
CREATE TEMP TABLE got AS $HASHES;
SELECT count(*) FILTER (WHERE e.id IS NOT NULL AND g.id IS NOT NULL
                          AND e.chash IS NOT DISTINCT FROM g.chash
                          AND e.md5 IS NOT DISTINCT FROM g.md5),
       (SELECT count(*) FROM expect),
       count(*) FILTER (WHERE e.id IS NULL OR g.id IS NULL
                          OR e.chash IS DISTINCT FROM g.chash
                          OR e.md5 IS DISTINCT FROM g.md5),
       (SELECT count(*) FROM worlds WHERE slime_info(world) IS NULL)
     + (SELECT count(*) FROM pairs WHERE (a IS NOT NULL AND slime_info(a) IS NULL)
                                      OR (b IS NOT NULL AND slime_info(b) IS NULL))
FROM expect e FULL JOIN got g ON (e.tbl, e.id, e.col) = (g.tbl, g.id, g.col);
SQL
) || { echo "$method: FAILED (comparison query failed)"; FAIL=1; return 0; }
    IFS='|' read -r same total bad nullinfo <<<"$res"
    if [ "$bad" = 0 ] && [ "$nullinfo" = 0 ] && [ "$same" = "$total" ] && [ "$total" = "$NVAL" ]; then
        printf '%-13s identical %s/%s\n' "$method:" "$same" "$total"
    else
        printf '%-13s MISMATCH identical %s/%s, %s differing or missing, %s with NULL slime_info\n' \
            "$method:" "$same" "$total" "$bad" "$nullinfo"
        FAIL=1
    fi
}
method_failed() { echo "$1: FAILED ($2)"; FAIL=1; }

# ---- 3. the four ways -------------------------------------------------------
slime_log "pgdump: dump/restore round trips"

db=slime_dump_plain
if createdb "$db" && pg_dump -Fp "$SRC" | slime_psql -d "$db" -o /dev/null; then
    compare plain "$db"
else method_failed plain "pg_dump -Fp | psql"; fi

db=slime_dump_custom
if createdb "$db" && pg_dump -Fc -f "$WORK/src.dump" "$SRC" &&
   pg_restore --exit-on-error -d "$db" "$WORK/src.dump"; then
    compare custom "$db"
else method_failed custom "pg_dump -Fc / pg_restore"; fi

db=slime_dump_dir
if createdb "$db" && pg_dump -Fd -j2 -f "$WORK/src.dir" "$SRC" &&
   pg_restore --exit-on-error -j2 -d "$db" "$WORK/src.dir"; then
    compare directory "$db"
else method_failed directory "pg_dump -Fd -j2 / pg_restore -j2"; fi

db=slime_dump_copy
if slime_psql -d "$SRC" -c "COPY worlds TO '$WORK/worlds.bin' WITH (FORMAT binary)" \
                        -c "COPY pairs TO '$WORK/pairs.bin' WITH (FORMAT binary)" &&
   createdb "$db" &&
   slime_psql -d "$db" -c "CREATE EXTENSION slime" -c "$DDL" \
        -c "COPY worlds FROM '$WORK/worlds.bin' WITH (FORMAT binary)" \
        -c "COPY pairs FROM '$WORK/pairs.bin' WITH (FORMAT binary)"; then
    compare binary-copy "$db"
else method_failed binary-copy "COPY (FORMAT binary)"; fi

if [ $FAIL != 0 ]; then echo "pgdump: FAILED"; exit 1; fi
echo "pgdump: all methods identical"
