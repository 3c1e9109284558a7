#!/usr/bin/env bash
# test/pgdump.sh — proves slime values survive pg_dump/pg_restore and binary
# COPY byte for byte.
#
# Builds a source database from real corpus region files (read server-side),
# records per value slime_content_hash() and md5(value::bytea), then copies
# the data four ways into fresh databases and compares every value:
#   plain     pg_dump -Fp | psql
#   hex-text  the same with slime.text_output = hex: the text form 0.1.0 to
#             0.3.0 wrote (a dump of theirs must restore)
#   custom    pg_dump -Fc + pg_restore
#   directory pg_dump -Fd -j2 + pg_restore -j2
#   binary    COPY ... TO file (FORMAT binary) + COPY FROM into fresh tables
#
# The source also uses the chunk store: a table of island saves with
# slime_store_trigger() (saves that share chunks: clones, one-chunk edits,
# a world with entities, a merged world with level.dat) with a slime[]
# column of reference values, beside the self-contained worlds and pairs
# tables. The four dump methods, plus a custom-format restore whose list
# (pg_restore -l / -L) loads every user table's data BEFORE the store's,
# must give, besides identical values: every reference value still in
# reference form (store_refs > 0, same bytes), every value resolving and
# passing slime_verify(slime_resolve()), the same store entries
# (hash, md5(data)), an empty slime_store_verify(), the trigger in place
# and a save through it that stores its new chunk.
# A game server's loader (issue #34) is in the source too: a world caught
# up, one whose newest two saves are pending (deferred: their frames and
# _pending rows), one released and settled cold. After each restore but
# the binary COPY (which copies three tables), every world's load gives
# the bytes it gave in the source, the pending saves convert to the worlds
# of their files, and a save goes on with the lease token of the source
# (and with a new lease on the cold world).
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
TARGETS=(slime_dump_plain slime_dump_hex slime_dump_custom slime_dump_dir slime_dump_reorder slime_dump_copy)

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
CREATE TABLE pairs(id int PRIMARY KEY, a slime, b slime);
CREATE TABLE worlds_files(world text, path text, data bytea, PRIMARY KEY (world, path));"

# Every value's content hash and stored-bytes md5, one row per (table,id,col);
# of the world files (issue #36) the md5 of their bytes and of the JSON
# slime_file_json reads them as.
HASHES="
SELECT 'worlds'::text AS tbl, id, 'world'::text AS col,
       encode(slime_content_hash(world), 'hex') AS chash, md5(world::bytea) AS md5 FROM worlds
UNION ALL
SELECT 'pairs', id, 'a', encode(slime_content_hash(a), 'hex'), md5(a::bytea) FROM pairs
UNION ALL
SELECT 'pairs', id, 'b', encode(slime_content_hash(b), 'hex'), md5(b::bytea) FROM pairs
UNION ALL
SELECT 'worlds_files', (row_number() OVER (ORDER BY world, path))::int, path,
       md5(slime_file_json(path, data)::text), md5(data) FROM worlds_files"

# The chunk store part: saves through the trigger and a slime[] column of
# reference values (the trigger stores slime columns only, so the array's
# elements go through slime_store() by hand).
STORE_DDL="
CREATE TABLE saves(island int, save_no int, world slime, history slime[],
                   PRIMARY KEY (island, save_no));
CREATE TRIGGER saves_store BEFORE INSERT OR UPDATE ON saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SELECT slime_track('saves');"
# one chunk of a save changed (a tag set in its NBT): a new store entry
edit() {        # edit ISLAND SAVE_NO TAG: a query giving that value as w
    printf "SELECT slime_put_chunk(s.world, c.x, c.z,
                slime_json_to_nbt(slime_chunk_json(s.world, c.x, c.z) || '{\"SlimeDumpEdit\": %s}')) AS w
            FROM saves s, LATERAL (SELECT x, z FROM slime_chunks(s.world) ORDER BY x, z OFFSET %s LIMIT 1) c
            WHERE s.island = %s AND s.save_no = %s" "$3" "$3" "$1" "$2"
}
STORE_SRC="
-- island 1: world 4 and two saves each with one more chunk changed
INSERT INTO saves(island, save_no, world) SELECT 1, 1, world FROM worlds WHERE id = 4;
INSERT INTO saves(island, save_no, world) SELECT 1, 2, w FROM ($(edit 1 1 2)) e;
INSERT INTO saves(island, save_no, world) SELECT 1, 3, w FROM ($(edit 1 2 3)) e;
-- island 2: a clone of island 1 (every chunk shared), then an edit of its own
INSERT INTO saves(island, save_no, world) SELECT 2, 1, world FROM saves WHERE island = 1 AND save_no = 1;
INSERT INTO saves(island, save_no, world) SELECT 2, 2, w FROM ($(edit 2 1 5)) e;
-- island 3: a world with entities; island 4: the merged world with level.dat
INSERT INTO saves(island, save_no, world) SELECT 3, 1, world FROM worlds WHERE id = 8;
INSERT INTO saves(island, save_no, world) SELECT 3, 2, w FROM ($(edit 3 1 7)) e;
INSERT INTO saves(island, save_no, world) SELECT 4, 1, world FROM worlds WHERE id = 101;
-- the history of island 1 in a slime[] column (reference values)
UPDATE saves SET history = ARRAY(SELECT slime_store(h.world) FROM saves h
                                 WHERE h.island = 1 ORDER BY h.save_no)
 WHERE island = 1 AND save_no = 3;
UPDATE saves SET history = ARRAY[slime_store((SELECT world FROM worlds WHERE id = 5)), NULL]
 WHERE island = 2 AND save_no = 2;"

# The loader part: three versions of a 12-chunk island of the 1.21.1 region
# (world 10), each one chunk further along; saved through slime_loader_save.
LOADER_SRC="
CREATE TABLE isl_files(k int PRIMARY KEY, f bytea NOT NULL);
INSERT INTO isl_files
SELECT k, (SELECT slime_to_slimefile(slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w.world, c.x, c.z))))
           FROM (SELECT x, z FROM slime_chunks(w.world) ORDER BY x, z OFFSET k LIMIT 12) c)
FROM worlds w, generate_series(0, 2) k WHERE w.id = 10;
CREATE FUNCTION pg_temp.isl_save(w text, v int) RETURNS bigint LANGUAGE plpgsql AS \$\$
BEGIN
  RETURN slime_loader_save('isl', w, (SELECT token FROM isl_worlds WHERE world = w), (SELECT f FROM isl_files WHERE k = v));
END \$\$;
DO \$\$
BEGIN
  PERFORM slime_loader_create('isl');
  PERFORM slime_loader_defer_table('isl');
  PERFORM slime_lease_acquire('isl', n, 'dump', '1 day') FROM unnest(ARRAY['caught', 'pending', 'cold']) n;
  PERFORM pg_temp.isl_save('caught', 0), pg_temp.isl_save('caught', 1), pg_temp.isl_save('caught', 2);
  PERFORM pg_temp.isl_save('cold', 0), pg_temp.isl_save('cold', 1);
  PERFORM slime_lease_release('isl', 'cold', (SELECT token FROM isl_worlds WHERE world = 'cold'));
  PERFORM pg_temp.isl_save('pending', 0);
  PERFORM set_config('slime.loader_defer', 'on', true);
  PERFORM pg_temp.isl_save('pending', 1);
  PERFORM pg_temp.isl_save('pending', 2);
  PERFORM set_config('slime.loader_defer', 'off', true);
END \$\$;
-- every store entry so far settled, and the cold world's file with them (a
-- settle of loader files counts against max_batches: the settle below
-- spends its batches on the store part's entries)
SELECT count(*) AS settled FROM slime_settle('0') \\gset"
# Per world of the loader: the md5 of its load, its pending saves, its kept form's magic.
LOADER_STATE="SELECT world, md5(slime_loader_load('isl', world)), (SELECT count(*) FROM isl_pending p WHERE p.world = w.world),
    encode(substring(file, 1, 4), 'hex') FROM isl_worlds w ORDER BY world"

# Every value of the store part: content hash, stored-bytes md5, store_refs.
STORE_HASHES="
SELECT 'saves'::text AS tbl, island * 100 + save_no AS id, 'world'::text AS col,
       encode(slime_content_hash(world), 'hex') AS chash, md5(world::bytea) AS md5,
       (slime_info(world)->>'store_refs')::int AS refs FROM saves
UNION ALL
SELECT 'saves', island * 100 + save_no, 'history[' || n || ']',
       encode(slime_content_hash(h), 'hex'), md5(h::bytea), (slime_info(h)->>'store_refs')::int
FROM saves, unnest(history) WITH ORDINALITY u(h, n) WHERE h IS NOT NULL"

# Every slime value of the database (all tables, array elements too).
ALL_VALUES="
SELECT 'worlds ' || id AS what, world AS v FROM worlds
UNION ALL SELECT 'pairs.a ' || id, a FROM pairs UNION ALL SELECT 'pairs.b ' || id, b FROM pairs
UNION ALL SELECT 'saves ' || island || '/' || save_no, world FROM saves
UNION ALL SELECT 'saves.history ' || island || '/' || save_no || '[' || n || ']', h
          FROM saves, unnest(history) WITH ORDINALITY u(h, n)"

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
    # a world's own files (bytea beside the values): every corpus level.dat
    # as the level.dat kept for a world, and a player file
    for f in "$CORPUS"/level-dat/*/level.dat "$CORPUS"/level-dat/*/*/level.dat; do
        [ -f "$f" ] || continue
        echo "INSERT INTO worlds_files VALUES ($(sql_lit "${f#"$CORPUS"/}"), 'level.dat', pg_read_binary_file($(sql_lit "$f")));"
    done
    echo "INSERT INTO worlds_files VALUES ('island', 'playerdata/736c696d-6500-0002-8100-000000000001.dat',
          slime_level(slime_with_level((SELECT world FROM worlds WHERE id = 1),
              '\\x0a000003000b4461746156657273696f6e00000e74090009496e76656e746f72790a00000001010004536c6f74000800026964000f6d696e6563726166743a6272656164010005436f756e74050000'::bytea)));"
    # second table: two slime columns, including a NULL
    echo "INSERT INTO pairs SELECT w1.id, w1.world, w2.world
          FROM worlds w1 LEFT JOIN worlds w2 ON w2.id = w1.id + 5 WHERE w1.id <= 5 OR w1.id = 100;"
    echo "$LOADER_SRC"
    echo "$STORE_DDL"
    echo "$STORE_SRC"
    echo "ANALYZE;"
} >"$WORK/src.sql"
createdb "$SRC"
slime_psql -d "$SRC" -f "$WORK/src.sql"
# part of the store settled into packs (slime_store_packs; packed rows point
# into them), part left as entries: both must come back as they were
slime_psql -d "$SRC" -At -c "SELECT items FROM slime_settle('0', batch_size => 8, max_batches => 3) WHERE what = 'store entries'" |
    sed 's/^/  source: entries settled into packs: /'

# the loader as the restores must give it back: 'cold' settled (no longer
# the framed form, 534c4652 "SLFR"), 'pending' with two pending saves
slime_psql -d "$SRC" -c "\\copy ($(tr '\n' ' ' <<<"$LOADER_STATE")) TO '$WORK/loader.tsv'"
sed 's/^/  source: loader world /' "$WORK/loader.tsv"
if [ "$(awk -F '\t' '{ printf "%s/%s/%s ", $1, $3, ($4 == "534c4652") }' "$WORK/loader.tsv")" != "caught/0/1 cold/0/0 pending/2/1 " ]; then
    echo "pgdump: source loader part not as built" >&2
    exit 1
fi

# (\copy must be on one line)
slime_psql -d "$SRC" -c "\\copy ($(tr '\n' ' ' <<<"$HASHES")) TO '$WORK/hashes.tsv'"
NVAL=$(wc -l <"$WORK/hashes.tsv")
slime_psql -d "$SRC" -At -c "SELECT id, name, slime_info(world)->>'chunks' AS chunks FROM worlds ORDER BY id" |
    sed 's/^/  source: /'
bad_src=$(slime_psql -d "$SRC" -At -c "SELECT count(*) FROM worlds WHERE slime_content_hash(world) IS NULL OR md5(world::bytea) IS NULL")
if [ "$NVAL" = 0 ] || [ "$bad_src" != 0 ]; then echo "pgdump: source hashes incomplete" >&2; exit 1; fi

# the chunk store part: its values and the store's entries
slime_psql -d "$SRC" -c "\\copy ($(tr '\n' ' ' <<<"$STORE_HASHES")) TO '$WORK/store-hashes.tsv'"
slime_psql -d "$SRC" -c "\\copy (SELECT encode(s.hash, 'hex'), md5(s.data) || coalesce(md5(p.data), '') FROM slime_store s LEFT JOIN slime_store_packs p ON p.id = s.pack) TO '$WORK/store-entries.tsv'"
NSVAL=$(wc -l <"$WORK/store-hashes.tsv")
NALL=$(slime_psql -d "$SRC" -At -c "SELECT count(*) FROM ($ALL_VALUES) a WHERE v IS NOT NULL")
NENTRIES=$(wc -l <"$WORK/store-entries.tsv")
read -r src_refs src_inline src_distinct <<<"$(slime_psql -d "$SRC" -At -F ' ' -c "
    SELECT sum((slime_info(world)->>'store_refs')::int), count(*) FILTER (WHERE (slime_info(world)->>'store_refs')::int = 0),
           (SELECT count(DISTINCT r) FROM saves, unnest(slime_refs(world)) r) FROM saves")"
echo "  source: $NSVAL reference values in saves (world, history[]) holding $src_refs chunk references;" \
     "$src_distinct distinct; $NENTRIES store entries"
if [ "$NSVAL" -lt 10 ] || [ "$src_inline" != 0 ] || [ "$NENTRIES" = 0 ] ||
   ! awk -F '\t' '$6 <= 0 { bad = 1 } END { exit bad }' "$WORK/store-hashes.tsv" ||
   [ "$src_distinct" -ge "$src_refs" ]; then
    echo "pgdump: source store part not as built (values not in reference form, no shared chunks or no store entries)" >&2
    exit 1
fi

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

# compare_store METHOD DB: the chunk store part of a restored database
compare_store() {
    local method=$1 db=$2 res same total bad inline unresolved store_same store_bad sv trig
    local new_refs new_ok new_entries new_entries2
    res=$(slime_psql -d "$db" -At <<SQL
CREATE FUNCTION pg_temp.problem(v slime) RETURNS text LANGUAGE plpgsql STABLE AS \$\$
BEGIN
  IF NOT slime_verify(slime_resolve(v)) THEN RETURN 'slime_verify(slime_resolve()) false'; END IF;
  IF slime_content_hash(slime_resolve(v)) IS DISTINCT FROM slime_content_hash(v) THEN
    RETURN 'resolved content hash differs';
  END IF;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM;
END \$\$;
CREATE TEMP TABLE expect(tbl text, id int, col text, chash text, md5 text, refs int);
\copy expect FROM '$WORK/store-hashes.tsv'
CREATE TEMP TABLE got AS $STORE_HASHES;
CREATE TEMP TABLE expect_store(hash text, md5 text);
\copy expect_store FROM '$WORK/store-entries.tsv'
CREATE TEMP TABLE got_store AS SELECT encode(s.hash, 'hex') AS hash, md5(s.data) || coalesce(md5(p.data), '') AS md5 FROM slime_store s LEFT JOIN slime_store_packs p ON p.id = s.pack;
CREATE TEMP TABLE problems AS SELECT what, pg_temp.problem(v) AS p FROM ($ALL_VALUES) a WHERE v IS NOT NULL;
SELECT count(*) FILTER (WHERE e.id IS NOT NULL AND g.id IS NOT NULL AND e.chash IS NOT DISTINCT FROM g.chash
                          AND e.md5 IS NOT DISTINCT FROM g.md5 AND e.refs IS NOT DISTINCT FROM g.refs),
       (SELECT count(*) FROM expect),
       count(*) FILTER (WHERE e.id IS NULL OR g.id IS NULL OR e.chash IS DISTINCT FROM g.chash
                          OR e.md5 IS DISTINCT FROM g.md5 OR e.refs IS DISTINCT FROM g.refs),
       count(*) FILTER (WHERE coalesce(g.refs, 0) <= 0),
       (SELECT count(*) FROM problems WHERE p IS NOT NULL) || '/' || (SELECT count(*) FROM problems),
       (SELECT count(*) FROM expect_store e JOIN got_store g USING (hash, md5)),
       (SELECT count(*) FROM expect_store e FULL JOIN got_store g USING (hash, md5) WHERE e.hash IS NULL OR g.hash IS NULL),
       (SELECT count(*) FROM slime_store_verify()),
       (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = 'saves'::regclass AND t.tgname = 'saves_store'
           AND NOT t.tgisinternal AND t.tgenabled = 'O'
           AND t.tgfoid = 'slime_store_trigger'::regproc)
FROM expect e FULL JOIN got g ON (e.tbl, e.id, e.col) = (g.tbl, g.id, g.col);
SELECT 'problem: ' || what || ': ' || p FROM problems WHERE p IS NOT NULL LIMIT 5;
SQL
) || { echo "$method (store): FAILED (comparison query failed)"; FAIL=1; return 0; }
    IFS='|' read -r same total bad inline unresolved store_same store_bad sv trig <<<"$(head -n 1 <<<"$res")"
    tail -n +2 <<<"$res" | sed "s/^/  $method: /"
    if [ "$bad" = 0 ] && [ "$inline" = 0 ] && [ "$same" = "$total" ] && [ "$total" = "$NSVAL" ]; then
        printf '%-13s store values identical %s/%s, all in reference form (store_refs > 0, as in the source)\n' "$method:" "$same" "$total"
    else
        printf '%-13s store values MISMATCH: identical %s/%s, %s differing or missing, %s not in reference form\n' \
            "$method:" "$same" "$total" "$bad" "$inline"
        FAIL=1
    fi
    if [ "${unresolved%/*}" = 0 ] && [ "${unresolved#*/}" = "$NALL" ]; then
        printf '%-13s all %s values resolve (slime_verify(slime_resolve()), same content hash)\n' "$method:" "${unresolved#*/}"
    else
        printf '%-13s %s values do NOT resolve (expected 0/%s)\n' "$method:" "$unresolved" "$NALL"; FAIL=1
    fi
    if [ "$store_same" = "$NENTRIES" ] && [ "$store_bad" = 0 ] && [ "$sv" = 0 ]; then
        printf '%-13s store identical: %s/%s entries (hash, md5(data)); slime_store_verify() empty\n' "$method:" "$store_same" "$NENTRIES"
    else
        printf '%-13s store MISMATCH: %s/%s entries same, %s extra or missing, slime_store_verify() %s rows\n' \
            "$method:" "$store_same" "$NENTRIES" "$store_bad" "$sv"
        FAIL=1
    fi
    if [ "$trig" != 1 ]; then
        printf '%-13s trigger saves_store missing or not enabled after restore\n' "$method:"; FAIL=1; return 0
    fi
    # saves through the restored trigger: one chunk changed (exactly one new
    # entry, reference form, the content it had before storing), and a
    # self-contained world (stored, equal to the original)
    res=$(slime_psql -d "$db" -At -F ' ' <<SQL
CREATE TEMP TABLE counts(step int, n bigint);
INSERT INTO counts SELECT 0, count(*) FROM slime_store;
CREATE TEMP TABLE newsave AS $(edit 1 3 11);
INSERT INTO saves(island, save_no, world) SELECT 1, 4, w FROM newsave;
INSERT INTO counts SELECT 1, count(*) FROM slime_store;
INSERT INTO saves(island, save_no, world) SELECT 5, 1, world FROM worlds WHERE id = 3;
INSERT INTO counts SELECT 2, count(*) FROM slime_store;
SELECT (slime_info(s.world)->>'store_refs')::int,
       slime_content_hash(s.world) = slime_content_hash(n.w) AND s.world = n.w
         AND slime_verify(slime_resolve(s.world))
         AND (SELECT slime_verify(slime_resolve(world)) AND (slime_info(world)->>'store_refs')::int > 0
                     AND world = (SELECT world FROM worlds WHERE id = 3)
              FROM saves WHERE island = 5)
         AND (SELECT count(*) = 0 FROM slime_store_verify()),
       (SELECT n FROM counts WHERE step = 1) - (SELECT n FROM counts WHERE step = 0),
       (SELECT n FROM counts WHERE step = 2) - (SELECT n FROM counts WHERE step = 1)
FROM saves s, newsave n WHERE s.island = 1 AND s.save_no = 4;
SQL
) || { printf '%-13s FAILED: INSERT through the restored trigger\n' "$method:"; FAIL=1; return 0; }
    read -r new_refs new_ok new_entries new_entries2 <<<"$res"
    if [ "${new_refs:-0}" -gt 0 ] && [ "$new_ok" = t ] && [ "$new_entries" = 1 ] && [ "${new_entries2:-0}" -gt 0 ]; then
        printf '%-13s trigger in place; a one-chunk save through it: 1 new entry, %s references, resolves; a new world: %s entries\n' \
            "$method:" "$new_refs" "$new_entries2"
    else
        printf '%-13s INSERT through the restored trigger wrong: refs %s, checks %s, new entries %s and %s (expected >0, t, 1, >0)\n' \
            "$method:" "$new_refs" "$new_ok" "$new_entries" "$new_entries2"
        FAIL=1
    fi
    # slime_gc()'s counts are not dumped (derived, unlogged): the restored
    # database's first collection reads everything once and removes nothing;
    # the saves table comes back tracked (ENABLE ALWAYS), so the next one
    # reads no value, and a save deleted is collected from the log
    res=$(slime_psql -d "$db" -At -F ' ' <<'SQL' 2>&1
SELECT (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = 'saves'::regclass AND t.tgname = 'slime_track'
          AND t.tgenabled = 'A'),
       (SELECT removed_entries FROM slime_gc()),
       (SELECT values_read FROM slime_gc());
DELETE FROM saves WHERE island = 1 AND save_no = 4;
SELECT removed_entries FROM slime_gc();
SQL
)
    if [ "$(echo $res)" = "1 0 0 1" ]; then
        printf '%-13s slime_gc() after the restore: removes nothing, then reads no value; the deleted save'"'"'s chunk collected\n' "$method:"
    else
        printf '%-13s slime_gc() after the restore wrong: %s (expected tracked 1, removed 0, values read 0, removed 1)\n' "$method:" "$(echo $res)"
        FAIL=1
    fi
}

# compare_loader METHOD DB: the loader part of a restored database: every
# world's load gives the source's bytes; the two pending saves convert, each
# to its file's world, the loads unchanged; a deferred save with the source's
# lease token, a save of the cold world under a new lease, and their loads
# and catch-up; slime_store_verify() empty after
compare_loader() {
    local method=$1 db=$2 res
    res=$(slime_psql -d "$db" -At -F ' ' -v ON_ERROR_STOP=1 <<SQL 2>&1
CREATE TEMP TABLE expect_l(world text, md5 text, pending bigint, form text);
\copy expect_l FROM '$WORK/loader.tsv'
CREATE TEMP TABLE got_l AS $LOADER_STATE;
SELECT count(*) FILTER (WHERE e.md5 = g.md5 AND e.pending = g.count AND e.form = g.encode), count(*) FROM expect_l e JOIN got_l g USING (world);
SELECT slime_loader_catch_up('isl');
SELECT (SELECT count(*) FROM isl_pending),
       (SELECT count(*) FROM expect_l e WHERE md5(slime_loader_load('isl', e.world)) = e.md5),
       (SELECT count(*) FILTER (WHERE slime_content_hash(s.data) = slime_content_hash(slime_from_slimefile(f.f)))
        || '/' || count(*) FROM isl s JOIN isl_files f ON f.k = s.save - 1);
SET slime.loader_defer = on;
SELECT slime_loader_save('isl', 'pending', (SELECT token FROM isl_worlds WHERE world = 'pending'), f) > 0 FROM isl_files WHERE k = 0;
RESET slime.loader_defer;
SELECT slime_loader_save('isl', 'cold', slime_lease_acquire('isl', 'cold', 'restored', '1 hour'), f) > 0 FROM isl_files WHERE k = 2;
SELECT (SELECT count(*) FROM isl_pending),
       (SELECT count(*) FROM isl_files f, (VALUES ('pending', 0), ('cold', 2)) v(w, k)
         WHERE f.k = v.k AND slime_content_hash(slime_from_slimefile(slime_loader_load('isl', v.w))) = slime_content_hash(slime_from_slimefile(f.f)));
SELECT slime_loader_catch_up('isl');
SELECT (SELECT count(*) FROM slime_store_verify()),
       (SELECT slime_content_hash(data) = (SELECT slime_content_hash(slime_from_slimefile(f)) FROM isl_files WHERE k = 0)
          FROM isl WHERE world = 'pending' ORDER BY save DESC LIMIT 1);
SQL
) || { printf '%-13s loader FAILED: %s\n' "$method:" "$(tail -n 3 <<<"$res" | tr '\n' ' ')"; FAIL=1; return 0; }
    if [ "$(echo $res)" = "3 3 2 0 3 8/8 t t 1 2 1 0 t" ]; then
        printf '%-13s loader: 3 worlds load the same bytes; 2 pending saves convert to their files; a save after the restore (source token, new lease) loads and converts\n' "$method:"
    else
        printf '%-13s loader MISMATCH: %s (expected 3 3 / 2 / 0 3 8/8 / t / t / 1 2 / 1 0 t)\n' "$method:" "$(echo $res)"
        FAIL=1
    fi
}

# ---- 3. the five ways -------------------------------------------------------
slime_log "pgdump: dump/restore round trips"

db=slime_dump_plain
if createdb "$db" && pg_dump -Fp "$SRC" | slime_psql -d "$db" -o /dev/null; then
    compare plain "$db"
    compare_store plain "$db"
    compare_loader plain "$db"
else method_failed plain "pg_dump -Fp | psql"; fi

# a dump as 0.1.0 to 0.3.0 wrote it: slime values in the hex text form
# ("\\x" + hex digits in COPY text); this version writes "b64:" + base64
db=slime_dump_hex
if createdb "$db" && PGOPTIONS="${PGOPTIONS:-} -c slime.text_output=hex" pg_dump -Fp -f "$WORK/src-hex.sql" "$SRC" &&
   slime_psql -d "$db" -o /dev/null -f "$WORK/src-hex.sql"; then
    if grep -q 'b64:' "$WORK/src-hex.sql" || ! grep -q '\\\\x534c494d' "$WORK/src-hex.sql"; then
        printf '%-13s the dump does not hold hex text values (or holds base64 ones)\n' "hex-text:"; FAIL=1
    fi
    compare hex-text "$db"
    compare_store hex-text "$db"
    compare_loader hex-text "$db"
else method_failed hex-text "PGOPTIONS=-c slime.text_output=hex pg_dump -Fp | psql"; fi

db=slime_dump_custom
if createdb "$db" && pg_dump -Fc -f "$WORK/src.dump" "$SRC" &&
   pg_restore --exit-on-error -d "$db" "$WORK/src.dump"; then
    compare custom "$db"
    compare_store custom "$db"
    compare_loader custom "$db"
else method_failed custom "pg_dump -Fc / pg_restore"; fi

db=slime_dump_dir
if createdb "$db" && pg_dump -Fd -j2 -f "$WORK/src.dir" "$SRC" &&
   pg_restore --exit-on-error -j2 -d "$db" "$WORK/src.dir"; then
    compare directory "$db"
    compare_store directory "$db"
    compare_loader directory "$db"
else method_failed directory "pg_dump -Fd -j2 / pg_restore -j2"; fi

# the custom dump again, with the store's data restored after every user
# table's (pg_restore -l, the slime_store TABLE DATA line moved to the end)
db=slime_dump_reorder
if pg_restore -l "$WORK/src.dump" >"$WORK/list.orig" &&
   awk '/ TABLE DATA .* slime_store / { store = $0; next }
        { print }
        END { if (store == "") exit 1; print store }' "$WORK/list.orig" >"$WORK/list.reorder" &&
   createdb "$db" &&
   pg_restore --exit-on-error -v -L "$WORK/list.reorder" -d "$db" "$WORK/src.dump" 2>"$WORK/reorder.log"; then
    # the order pg_restore followed: slime_store's data after every other table's
    order=$(sed -n 's/.*processing data for table "\(.*\)".*/\1/p' "$WORK/reorder.log" | tr '\n' ' ')
    echo "  reorder: data restored in the order: $order"
    if [ "$(awk '{ print $NF }' <<<"$order")" = public.slime_store ] && [ "$(wc -w <<<"$order")" -ge 4 ]; then
        compare store-last "$db"
        compare_store store-last "$db"
        compare_loader store-last "$db"
    else method_failed store-last "pg_restore did not load slime_store's data last: $order"; fi
else
    tail -n 5 "$WORK/reorder.log" 2>/dev/null || true
    method_failed store-last "pg_restore -L with slime_store's data last"
fi

db=slime_dump_copy
if slime_psql -d "$SRC" -c "COPY worlds TO '$WORK/worlds.bin' WITH (FORMAT binary)" \
                        -c "COPY pairs TO '$WORK/pairs.bin' WITH (FORMAT binary)" \
                        -c "COPY worlds_files TO '$WORK/worlds_files.bin' WITH (FORMAT binary)" &&
   createdb "$db" &&
   slime_psql -d "$db" -c "CREATE EXTENSION slime" -c "$DDL" \
        -c "COPY worlds FROM '$WORK/worlds.bin' WITH (FORMAT binary)" \
        -c "COPY pairs FROM '$WORK/pairs.bin' WITH (FORMAT binary)" \
        -c "COPY worlds_files FROM '$WORK/worlds_files.bin' WITH (FORMAT binary)"; then
    compare binary-copy "$db"
else method_failed binary-copy "COPY (FORMAT binary)"; fi

if [ $FAIL != 0 ]; then echo "pgdump: FAILED"; exit 1; fi
echo "pgdump: all methods identical"
