#!/usr/bin/env bash
# test/schedule.sh — slime_settle() on a schedule with pg_cron (issue #22),
# exactly as the README sets it up.
#
# Installs Debian's postgresql-15-cron when it is missing (CI runs on a clean
# Debian 12 as root). When SLIME_PG_BIN is a private copy of PostgreSQL (its
# pkglibdir is not the package's), the package's pg_cron files are copied
# into that copy. Then a throwaway cluster with shared_preload_libraries =
# 'pg_cron' (jobs in background workers: the cluster listens on its unix
# socket only), the extensions, a table of worlds through the chunk store,
# and the README's cron.schedule() of slime_settle and of the procedure
# slime_settle_batches (here with older_than => '0', so that the entries
# just written count as cold). Passes when cron.job_run_details shows a run
# of each that succeeded and the store entries are settled with every world
# unchanged. pg_cron 1.4 schedules by the minute:
# the wait is up to SLIME_SCHEDULE_WAIT seconds (default 150). Ends with
# "N passed, N failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

slime_suite_begin schedule
WAIT=${SLIME_SCHEDULE_WAIT:-150}

# ---- pg_cron: the Debian package, and its files in a private PostgreSQL ----
if [ "$(dpkg-query -W -f='${db:Status-Status}' postgresql-15-cron 2>/dev/null || true)" != installed ]; then
    slime_log "schedule: installing postgresql-15-cron"
    slime_apt postgresql-15-cron || { result FAIL "apt-get install postgresql-15-cron failed"; finish; }
fi
LIBDIR=$("$SLIME_PG_CONFIG" --pkglibdir)
EXTDIR=$("$SLIME_PG_CONFIG" --sharedir)/extension
if [ ! -f "$LIBDIR/pg_cron.so" ]; then
    echo "schedule: copying pg_cron from the Debian package into $LIBDIR (a private PostgreSQL)" >&2
    cp /usr/lib/postgresql/15/lib/pg_cron.so "$LIBDIR/"
    cp /usr/share/postgresql/15/extension/pg_cron* "$EXTDIR/"
fi
if [ -f "$LIBDIR/pg_cron.so" ] && [ -f "$EXTDIR/pg_cron.control" ]; then
    result OK "pg_cron is installed for $SLIME_PG_BIN"
else
    result FAIL "pg_cron.so or pg_cron.control missing under $LIBDIR / $EXTDIR"; finish
fi

# ---- a cluster that preloads pg_cron ----------------------------------------
SLIME_PG_CONF="shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 16" slime_suite_cluster schedule

F=anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
slime_psql <<SQL >/dev/null
CREATE EXTENSION slime;
CREATE EXTENSION pg_cron;
CREATE TABLE islands(id int PRIMARY KEY, world slime);
CREATE TRIGGER islands_store BEFORE INSERT OR UPDATE ON islands
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO islands VALUES (1, slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$F")), 0, 0));
CREATE TABLE seen AS SELECT id, slime_resolve(world)::bytea AS resolved FROM islands;
SQL
read -r entries settled <<<"$(slime_psql -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE settled) FROM slime_store")"
echo "  $entries store entries, $settled settled" >&2

# the README's commands (older_than => '0' here: the entries are seconds
# old): the function, and the procedure that commits batch by batch
slime_psql -At -c "SELECT cron.schedule('slime-settle', '* * * * *', \$\$SELECT * FROM slime_settle(older_than => '0')\$\$)" \
               -c "SELECT cron.schedule('slime-settle-batches', '* * * * *', \$\$CALL slime_settle_batches(older_than => '0', batch_size => 20)\$\$)" >/dev/null
slime_log "schedule: waiting for the jobs to run (up to ${WAIT}s)"
done_jobs=0
for ((i = 0; i < WAIT; i += 5)); do
    done_jobs=$(slime_psql -At -c "SELECT count(DISTINCT jobid) FROM cron.job_run_details
                                   WHERE status IN ('succeeded', 'failed')")
    [ "$done_jobs" = 2 ] && break
    sleep 5
done
slime_psql -c "SELECT runid, jobname, status, return_message, end_time - start_time AS took
               FROM cron.job_run_details d JOIN cron.job j USING (jobid) ORDER BY runid" >&2 || true
for job in slime-settle slime-settle-batches; do
    status=$(slime_psql -At -c "SELECT status FROM cron.job_run_details d JOIN cron.job j USING (jobid)
                                WHERE j.jobname = '$job' AND status IN ('succeeded', 'failed')
                                ORDER BY runid LIMIT 1")
    if [ "$status" = succeeded ]; then
        result OK "pg_cron ran $job: cron.job_run_details shows a run that succeeded"
    else
        result FAIL "no successful run of the $job job in ${WAIT}s (status '${status:-none}')"
    fi
done
read -r entries settled packed same <<<"$(slime_psql -At -F ' ' -c "
    SELECT count(*), count(*) FILTER (WHERE settled), count(*) FILTER (WHERE pack IS NOT NULL),
           (SELECT bool_and(s.resolved = slime_resolve(i.world)::bytea) FROM seen s JOIN islands i USING (id))
    FROM slime_store")"
if [ "$entries" -gt 0 ] && [ "$settled" = "$entries" ] && [ "$packed" -gt 0 ] && [ "$same" = t ]; then
    result OK "the job settled all $entries store entries ($packed packed), every world unchanged"
else
    result FAIL "after the job: $settled of $entries entries settled, $packed packed, worlds unchanged: $same"
fi
slime_psql -At -c "SELECT cron.unschedule('slime-settle')" -c "SELECT cron.unschedule('slime-settle-batches')" >/dev/null
finish
