#!/usr/bin/env bash
# test/demo.sh — set slime up and show it on a Minecraft world.
#
#   bash test/demo.sh [WORLD_DIR]   install deps, build, install, start a
#                                   throwaway cluster (left running), import
#                                   the world into table demo_worlds of
#                                   database slime_demo and show what it holds
#   bash test/demo.sh --stop        stop and remove that cluster
#
# WORLD_DIR is a Java-edition world folder (with region/, DIM-1/region, ...)
# or just a folder of r.X.Z.mca files.  Without it a generated world is used
# (build/slimetool gen-world), or else a sample from the shared corpus.
# SLIME_DEMO_STRICT=false makes the import repair damaged chunks instead of
# failing on them (slimetool --lenient, or strict => false in the fallback).
# The demo prints its steps and results; package, compiler and make output
# goes to a log file (SLIME_DEMO_LOG, default /tmp/slime-demo.log) whose
# tail it prints when a step fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

ENV_FILE=${SLIME_DEMO_ENV:-/tmp/slime-demo.env}
DB=slime_demo
TABLE=demo_worlds
case "${SLIME_DEMO_STRICT:-true}" in false|off|0) STRICT=false ;; *) STRICT=true ;; esac

usage() { sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

LOG=${SLIME_DEMO_LOG:-/tmp/slime-demo.log}

# step TEXT CMD...: run CMD with its output in $LOG; print TEXT and ok, or
# FAILED and the log's tail. Returns CMD's status.
step() {
    local what=$1 t0=$SECONDS rc=0
    shift
    printf '== %s ... ' "$what"
    { echo; echo "==== $what"; } >>"$LOG"
    "$@" >>"$LOG" 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then
        echo "ok ($((SECONDS - t0)) s)"
    else
        echo "FAILED (exit $rc)"
        echo "---- last 40 lines of $LOG ----"
        tail -n 40 "$LOG"
        echo "---- end of $LOG ----"
    fi
    return "$rc"
}

# Stops the cluster recorded in $ENV_FILE (only its SLIME_PGTMP line is used).
stop_demo() {
    local tmp
    if [ ! -f "$ENV_FILE" ]; then echo "demo: no demo cluster recorded in $ENV_FILE"; return 0; fi
    tmp=$(sed -n 's/^export SLIME_PGTMP=//p' "$ENV_FILE" | tr -d "'\"")
    slime_cluster_stop "$tmp"
    rm -f "$ENV_FILE"
    echo "demo: stopped and removed the cluster in ${tmp:-?}"
}

case "${1:-}" in
    --stop) stop_demo; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
esac
WORLD=${1:-}
if [ -n "$WORLD" ]; then
    [ -d "$WORLD" ] || { echo "demo: not a directory: $WORLD" >&2; exit 2; }
    WORLD=$(cd "$WORLD" && pwd -P)
fi

sql_lit() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }     # SQL string literal

# world_dir DIR: succeeds when DIR is a world folder as slimetool copy-world
# sees one (level.dat; region/, entities/ or poi/ of its own, of DIM-1/, DIM1/
# or dimensions/*/*/; or region files of its own): the check without slimetool.
world_dir() {
    local d k
    compgen -G "$1/level.dat" || compgen -G "$1/r.*.mc[ar]" && return 0
    for d in "$1" "$1"/DIM-1 "$1"/DIM1 "$1"/dimensions/*/*; do
        for k in region entities poi; do [ -d "$d/$k" ] && return 0; done
    done
    return 1
}

# ---- fallback importer (used while clients/import-world.sh does not exist) ----
# import_fallback WORLD TABLE: one row per dimension, every region file read
# server-side and merged with slime_agg; entities/ and poi/ beside region/.
import_fallback() {
    local w=$1 table=$2 sqlf dims=() d rdir dim x xz found base f
    sqlf=$SLIME_PGTMP/import.sql
    echo "CREATE TABLE IF NOT EXISTS $table (dimension text PRIMARY KEY, world slime);" >"$sqlf"
    # "dimension-name|folder holding region/ entities/ poi/"
    [ -d "$w/region" ] && dims+=("minecraft:overworld|$w")
    [ -d "$w/DIM-1/region" ] && dims+=("minecraft:the_nether|$w/DIM-1")
    [ -d "$w/DIM1/region" ] && dims+=("minecraft:the_end|$w/DIM1")
    for rdir in "$w"/dimensions/*/*/region; do
        [ -d "$rdir" ] || continue
        d=${rdir%/region}; x=${d#"$w"/dimensions/}
        dims+=("${x%%/*}:${x#*/}|$d")
    done
    # a bare folder of region files counts as the overworld's region/
    if [ ${#dims[@]} = 0 ] && compgen -G "$w/r.*.mc[ar]" >/dev/null; then
        dims+=("minecraft:overworld|$w|bare")
    fi
    [ ${#dims[@]} -gt 0 ] || { echo "demo: no region files found under $w" >&2; return 1; }

    for d in "${dims[@]}"; do
        IFS='|' read -r dim base x <<<"$d"
        local reg=$base/region ent=$base/entities poi=$base/poi values=
        [ "$x" = bare ] && reg=$base
        # every region coordinate present in region/, entities/ or poi/
        found=$(for f in "$reg"/r.*.mc[ar] "$ent"/r.*.mca "$poi"/r.*.mca; do
                    [ -s "$f" ] || continue              # skip empty files
                    f=${f##*/}; f=${f#r.}; echo "${f%.*}"
                done | sort -u)
        for xz in $found; do
            local r=NULL e=NULL p=NULL
            if [ -s "$reg/r.$xz.mca" ]; then r=$(sql_lit "$reg/r.$xz.mca")
            elif [ -s "$reg/r.$xz.mcr" ]; then r=$(sql_lit "$reg/r.$xz.mcr"); fi
            [ -s "$ent/r.$xz.mca" ] && e=$(sql_lit "$ent/r.$xz.mca")
            [ -s "$poi/r.$xz.mca" ] && p=$(sql_lit "$poi/r.$xz.mca")
            values+="${values:+,
  }($r::text, ${xz%.*}, ${xz#*.}, $e::text, $p::text)"
        done
        [ -n "$values" ] || continue
        echo "  $dim: $(wc -w <<<"$found") region(s) from $base" >&2
        cat >>"$sqlf" <<SQL
INSERT INTO $table (dimension, world)
SELECT $(sql_lit "$dim"), slime_agg(slime_import_region(
         CASE WHEN r IS NOT NULL THEN pg_read_binary_file(r) END, rx, rz,
         CASE WHEN e IS NOT NULL THEN pg_read_binary_file(e) END,
         CASE WHEN p IS NOT NULL THEN pg_read_binary_file(p) END,
         strict => $STRICT))
FROM (VALUES $values) v(r, rx, rz, e, p);
SQL
    done
    if [ -f "$w/level.dat" ]; then
        echo "UPDATE $table SET world = slime_with_level(world, pg_read_binary_file($(sql_lit "$w/level.dat")))
              WHERE dimension = 'minecraft:overworld';" >>"$sqlf"
    fi
    slime_psql -f "$sqlf"
}

# ---- set up -----------------------------------------------------------------
: >"$LOG"
echo "demo: package, compiler and make output goes to $LOG"
step "install the Debian packages slime needs" slime_install_deps || exit 1
rc=0; step "build and install the extension and build/slimetool" slime_build_install || rc=$?
case $rc in
    0) ;;
    2) slime_warn "build/slimetool did not build; going on without it (see $LOG)" ;;
    *) echo "demo: the extension did not build (see $LOG)" >&2; exit 1 ;;
esac

# Check the folder before anything is stopped or created: a wrong path must
# not cost the previous demo's tables.
if [ -n "$WORLD" ]; then
    if [ -x build/slimetool ]; then
        build/slimetool copy-world "$WORLD" --check || exit 1
    elif ! world_dir "$WORLD" >/dev/null; then
        echo "demo: $WORLD is not a world folder: it holds no level.dat, no region/, entities/ or poi/" \
             "folder, no DIM-1/ or DIM1/ with one of those, no dimensions/<namespace>/<name>/ with one," \
             "and no region files (r.X.Z.mca or r.X.Z.mcr) of its own" >&2
        exit 1
    fi
fi

if [ -f "$ENV_FILE" ]; then
    echo "== stopping the previous demo cluster first"
    stop_demo
fi
echo "== starting a throwaway cluster"
slime_cluster_start --keep
DEMO_OK=0
slime_on_exit '[ "$DEMO_OK" = 1 ] || { echo "demo: FAILED, removing the cluster" >&2; slime_cluster_stop; }'

createdb "$DB"
export PGDATABASE=$DB
slime_psql -c "CREATE EXTENSION slime"

# ---- the world to show ------------------------------------------------------
if [ -z "$WORLD" ]; then
    WORLD=$SLIME_PGTMP/gen-world
    if [ -x build/slimetool ] && build/slimetool gen-world "$WORLD" >>"$LOG" 2>&1; then
        echo "demo: generated a world with build/slimetool gen-world in $WORLD"
    else
        corpus=$(slime_corpus)
        sample=$corpus/anvil-1.18plus/minestom/anvil_vanilla_sample
        echo "demo: NOTE build/slimetool gen-world is not available; using the corpus"
        echo "      sample $sample as the world's region/ folder instead"
        rm -rf "$WORLD"; mkdir -p "$WORLD"
        ln -s "$sample" "$WORLD/region"                  # read in place, not copied
        [ -f "$corpus/level-dat/minestom/anvil_vanilla_sample/level.dat" ] &&
            ln -s "$corpus/level-dat/minestom/anvil_vanilla_sample/level.dat" "$WORLD/level.dat"
    fi
    chmod -R a+rX "$WORLD" 2>/dev/null || true          # the server reads it as postgres
fi
runuser -u postgres -- test -r "$WORLD" ||
    slime_warn "$WORLD may not be readable by OS user postgres (the server reads region files)"

echo "== importing $WORLD into $DB.$TABLE"
if [ -f clients/import-world.sh ] && [ -x build/slimetool ]; then
    [ "$STRICT" = false ] && export SLIMETOOL_OPTS=${SLIMETOOL_OPTS:---lenient}
    bash clients/import-world.sh "$WORLD" "$TABLE"
else
    echo "demo: NOTE clients/import-world.sh or build/slimetool is missing; importing with the built-in fallback"
    import_fallback "$WORLD" "$TABLE"
fi

# ---- show what it holds -----------------------------------------------------
# Column names: the slime column, and a label (preferably "dimension").
SCOL=$(slime_psql -At -c "SELECT quote_ident(attname) FROM pg_attribute
    WHERE attrelid = '$TABLE'::regclass AND attnum > 0 AND NOT attisdropped
      AND atttypid = 'slime'::regtype ORDER BY attnum LIMIT 1")
LCOL=$(slime_psql -At -c "SELECT quote_ident(attname) FROM pg_attribute
    WHERE attrelid = '$TABLE'::regclass AND attnum > 0 AND NOT attisdropped
      AND atttypid IN ('text'::regtype, 'varchar'::regtype)
    ORDER BY attname <> 'dimension', attnum LIMIT 1")
[ -n "$SCOL" ] || { echo "demo: $TABLE has no slime column" >&2; exit 1; }
LCOL=${LCOL:-"'row ' || ctid::text"}

echo "== what $TABLE holds"
slime_psql -P footer=off <<SQL
\echo 'Per dimension (slime_info):'
SELECT $LCOL AS dimension,
       (i ->> 'chunks')::int AS chunks,
       pg_size_pretty((i ->> 'raw_bytes')::bigint) AS raw,
       pg_size_pretty((i ->> 'stored_bytes')::bigint) AS stored,
       round((i ->> 'raw_bytes')::numeric / nullif((i ->> 'stored_bytes')::numeric, 0), 1) AS ratio,
       coalesce((i -> 'data_version' ->> 'min') || ' .. ' ||
                (i -> 'data_version' ->> 'max'), 'none') AS data_version,
       i ->> 'frames' AS frames,
       i ->> 'has_level' AS level_dat
FROM $TABLE t, LATERAL slime_info(t.$SCOL) i
ORDER BY 1;

\echo 'Block entities by type (top 15 per dimension; pre-1.18 Level.TileEntities, 1.18+ block_entities):'
WITH chunk AS (
    SELECT $LCOL AS dimension, slime_nbt_to_json(slime_chunk_nbt(t.$SCOL, c.x, c.z)) AS j
    FROM $TABLE t, LATERAL slime_chunks(t.$SCOL) c
), lists AS (
    SELECT dimension,
           CASE WHEN jsonb_typeof(j -> 'Level' -> 'TileEntities') = 'array' THEN j -> 'Level' -> 'TileEntities'
                WHEN jsonb_typeof(j -> 'block_entities') = 'array' THEN j -> 'block_entities'
                ELSE '[]'::jsonb END AS list
    FROM chunk
), counted AS (
    SELECT dimension, coalesce(e ->> 'id', '(no id)') AS block_entity, count(*) AS n
    FROM lists, LATERAL jsonb_array_elements(list) e
    GROUP BY 1, 2
)
SELECT dimension, block_entity, n
FROM (SELECT *, row_number() OVER (PARTITION BY dimension ORDER BY n DESC, block_entity) AS k FROM counted) s
WHERE k <= 15
ORDER BY dimension, n DESC, block_entity;
SQL

# ---- a picture: the top-down map of the first dimension ---------------------
MAP=$SLIME_PGTMP/map.png
echo "== a top-down map of the first dimension (slime_render_map)"
if slime_psql -At -c "SELECT encode(m, 'hex') FROM (SELECT $LCOL AS label, slime_render_map(t.$SCOL) AS m
                      FROM $TABLE t) s WHERE m IS NOT NULL ORDER BY label LIMIT 1" |
        perl -ne 'chomp; print pack("H*", $_)' >"$MAP" && [ -s "$MAP" ]; then
    echo "demo: $MAP ($(stat -c %s "$MAP") bytes): open it in an image viewer"
else
    slime_warn "no map rendered (no chunks?)"
fi

# ---- keep running: tell how to connect and stop -----------------------------
{
    echo "# slime demo cluster (written by test/demo.sh); 'source' it to use psql"
    printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=%q\n' "$PGHOST" "$PGPORT" "$DB"
    printf 'export PGDATA=%q\n' "$PGDATA"
    printf 'export SLIME_PGTMP=%q\n' "$SLIME_PGTMP"
} >"$ENV_FILE"
# shellcheck disable=SC2034  # read by the exit hook
DEMO_OK=1

cat <<EOF

The demo cluster keeps running (data in $PGDATA, log $SLIME_PGTMP/server.log).
  connect:  source $ENV_FILE && psql
            (or: psql -h $PGHOST -p $PGPORT -U postgres $DB)
            e.g.  SELECT $LCOL, slime_info($SCOL) FROM $TABLE;
                  SELECT slime_render_map($SCOL, scale => 2) FROM $TABLE;   -- a PNG
            the README's examples use islands(id, world): its "Quick start" makes
            that table from $TABLE in one statement
  stop:     bash test/demo.sh --stop
EOF
