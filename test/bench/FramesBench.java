package dev.slime.asp;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/*
 * Issue #34: the game-server path against the blob it replaces, as a
 * network runs it. Islands of 5x5 chunks cut from real 1.18+ regions of
 * the corpus (IslandBench's: -Dislands=N, 8 by default; past 8 the same
 * regions' next 25-chunk windows), 50 versions each, 1-5 chunks edited a
 * version, each written by slime_to_slimefile; and the real ASP file
 * slime/crawlspace/hub.slime (-Dworld=hub), 11 versions with 1-5 chunks
 * edited each.
 * PostgresSlimeLoader.saveWorld (slime_loader_save, keep => 10) against a
 * bytea table with one row a world (ASP's MySQL loader's shape: INSERT ..
 * ON CONFLICT DO UPDATE). -Dwhole=true drops the loader's _frames table
 * first, so that its saves keep whole files (the hot form, as before
 * issue #34): run once each way, the two are before and after.
 * -Ddefer=true makes the loader's _pending table (slime_loader_defer_table;
 * bench_frames.sh turns slime.loader_defer on for the database): its saves
 * convert nothing, and slime_loader_catch_up() converts them, timed apart
 * (the work a schedule does) on a connection of its own kept for every
 * call: after each round of one client's saves (before its loads), and once
 * after the 4 clients' saves; the WAL of the catch-ups after one client's
 * rounds is added to the saves' own in "WAL a save with its catch-up" (a
 * deferred save's conversion is written then).
 *
 * The loader and the bytea table run on connections of their own (a
 * network runs one or the other; on one shared backend, each side's work
 * left the heap as the other found it: a backend that only selects
 * 170 KB bytea values has glibc give the memory back and fault it in again
 * each time, one shared with the loader does not). Version 0 of every
 * world is saved first, untimed. Then, one connection each: versions 1-24
 * of every island, saved by the bytea table and the loader in turn, each
 * version's saves followed by two loads of every island by each, at least
 * 32 a round (the hub's one world loaded 32 times: 10 loads a run were
 * too few to tell its runs apart), the two
 * tables' loads in 4 alternating slices (saves/s, loads/s, WAL bytes a save from
 * pg_current_wal_insert_lsn, backend CPU ms an operation from
 * /proc/<pid>/schedstat); then versions 25-49 saved by 4 connections at
 * once (an island each at a time; saves/s; the worst save's latency
 * beside). Disk: every relation of the extension and of the loader (heap,
 * TOAST, indexes) against the bytea table's, after VACUUM, once with the
 * worlds hot (leases held: the loader keeps each file), once after the
 * leases are released and slime_gc() and slime_settle(older_than => '0')
 * ran (the worlds cold), and once more after VACUUM FULL of every table
 * (the space the data takes: the bytea table's 50 versions of each row
 * leave it bloated until then, the slime tables' deleted rows too). Never
 * fails on a number.
 */
public final class FramesBench {

    private static final int ISLANDS = Integer.getInteger("islands", 8);
    private static final int VERSIONS = 50;
    private static final int HUB_VERSIONS = 11;
    private static final boolean WHOLE = Boolean.getBoolean("whole");
    private static final boolean DEFER = Boolean.getBoolean("defer");

    private FramesBench() {
    }

    // The region (and 25-chunk window) of island i.
    private static String region(int i) {
        String r = IslandBench.REGIONS[i % IslandBench.REGIONS.length];
        int extra = i / IslandBench.REGIONS.length;
        if (extra == 0)
            return r;
        int base = r.contains("#") ? Integer.parseInt(r.replaceAll(".*#", "")) : 0;
        return r.replaceAll("#.*", "") + "#" + (base + 3 * extra);
    }

    // The versions of island i: its region's window, or the next windows when one has no chunk to edit.
    private static List<byte[]> island(DataSource ds, int i) throws Exception {
        String r = region(i);
        for (int t = 0; ; t++) {
            try {
                return IslandBench.versions(ds, i, r);
            } catch (IllegalStateException e) {
                if (t == 8 || i < IslandBench.REGIONS.length)
                    throw e;
                int at = Integer.parseInt(r.replaceAll(".*#", ""));
                r = r.replaceAll("#.*", "") + "#" + (at + 1);
            }
        }
    }

    private static long scalarLong(String sql) throws Exception {
        return ((Number) Db.scalar(sql)).longValue();
    }

    // slime_loader_catch_up(tbl) on c: a maintenance worker's connection, kept between calls
    // (a new connection each call would add a backend's start and the statements' preparing to each)
    private static long catchUp(Connection c, String tbl) throws Exception {
        try (ResultSet r = c.createStatement().executeQuery("SELECT slime_loader_catch_up('" + tbl + "', NULL, NULL)")) {
            r.next();
            return r.getLong(1);
        }
    }

    // WAL bytes written so far (this cluster).
    private static long wal() throws Exception {
        return scalarLong("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint");
    }

    // Bytes of every relation of the extension and of the loader's tables (heap, TOAST, indexes).
    private static long slimeBytes(String loader) throws Exception {
        return scalarLong("SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c WHERE c.relkind = 'r' AND ("
                + "c.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid "
                + "WHERE e.extname = 'slime' AND d.classid = 'pg_class'::regclass AND d.deptype = 'e') "
                + "OR c.relname IN ('" + loader + "', '" + loader + "_worlds', '" + loader + "_frames'))");
    }

    private static long byteaBytes(String table) throws Exception {
        return scalarLong("SELECT pg_total_relation_size('" + table + "')");
    }

    private static void byteaSave(DataSource ds, String table, String name, byte[] file) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " (name, world) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET world = EXCLUDED.world")) {
            ps.setString(1, name);
            ps.setBytes(2, file);
            ps.executeUpdate();
        }
    }

    private static void byteaLoad(DataSource ds, String table, String name) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT world FROM " + table + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                r.getBytes(1);
            }
        }
    }

    // A save by 4 connections at once: the versions from..to-1 of n worlds; {wall seconds, worst save seconds}.
    private interface Save {
        void save(int world, int version) throws Exception;
    }

    private static double[] concurrent(int n, int from, int to, Save s) throws Exception {
        int clients = 4;
        double[] worst = new double[clients];
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        for (int t = 0; t < clients; t++) {
            int me = t;
            Thread th = new Thread(() -> {
                try {
                    for (int v = from; v < to; v++)
                        for (int i = me; i < n; i += clients) {
                            long a = System.nanoTime();
                            s.save(i, v);
                            worst[me] = Math.max(worst[me], (System.nanoTime() - a) / 1e9);
                        }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads)
            th.join();
        if (!errors.isEmpty())
            throw new IllegalStateException(errors.get(0));
        double w = 0;
        for (double x : worst)
            w = Math.max(w, x);
        return new double[] {(System.nanoTime() - t0) / 1e9, w};
    }

    private static void row(String what, String slime, String bytea, double ratio) {
        System.out.printf("| %-58s | %14s | %14s | %6.2fx |%n", what, slime, bytea, ratio);
    }

    // Saves, loads, WAL and disk of one set of worlds; versions.get(i) are world i's files.
    private static void run(DataSource ds, DataSource bds, String label, String loaderTable, String byteaTable,
                            List<List<byte[]>> versions, int oneClientTo) throws Exception {
        int n = versions.size();
        int last = versions.get(0).size();
        int slimePid = LoaderBench.backendPidOf(ds), byteaPid = LoaderBench.backendPidOf(bds);
        Db.execute("CREATE TABLE " + byteaTable + " (name text PRIMARY KEY, world bytea NOT NULL)");
        PostgresSlimeLoader slime = new PostgresSlimeLoader(ds, loaderTable, 10);
        if (DEFER)
            // deferred saves (0.13.0): the loader's _pending table; bench_frames.sh sets slime.loader_defer
            Db.execute("SELECT slime_loader_defer_table('" + loaderTable + "')");
        if (WHOLE)
            Db.execute("DROP TABLE " + loaderTable + "_frames");
        long[] tokens = new long[n];
        for (int i = 0; i < n; i++) {
            tokens[i] = slime.acquireLease("w" + i, "bench", Duration.ofHours(1)).orElseThrow();
            byteaSave(bds, byteaTable, "w" + i, versions.get(i).get(0));
            slime.saveWorld("w" + i, versions.get(i).get(0), tokens[i]);
        }
        double[] sb = new double[2], ss = new double[2], lb = new double[2], ls = new double[2];
        long walB = 0, walS = 0;
        int saves = 0, loads = 0;
        int loadsPerRound = Math.max(2 * n, 32);
        Connection worker = DEFER ? Db.dataSource().getConnection() : null;
        long catchUpSaves = 0, walC = 0;
        double catchUpSeconds = 0;
        for (int v = 1; v < oneClientTo; v++) {
            int ver = v;
            long w0 = wal();
            LoaderBench.backendPid = byteaPid;
            LoaderBench.time(n, sb, i -> byteaSave(bds, byteaTable, "w" + i, versions.get(i).get(ver)));
            long w1 = wal();
            LoaderBench.backendPid = slimePid;
            LoaderBench.time(n, ss, i -> slime.saveWorld("w" + i, versions.get(i).get(ver), tokens[i]));
            long w2 = wal();
            walB += w1 - w0;
            walS += w2 - w1;
            saves += n;
            if (DEFER) {
                // what a schedule does between rounds: the round's pending saves converted, timed apart
                long w3 = wal(), t0 = System.nanoTime();
                catchUpSaves += catchUp(worker, loaderTable);
                catchUpSeconds += (System.nanoTime() - t0) / 1e9;
                walC += wal() - w3;
            }
            // each world loaded twice a round, and at least 32 loads a round (the hub: one world), the
            // bytea table's and the loader's in 4 alternating slices (a quarter of the worlds each), so that
            // both sides see the same moments of the machine
            for (int q = 0; q < 4; q++) {
                int from = q * loadsPerRound / 4, to = (q + 1) * loadsPerRound / 4;
                LoaderBench.backendPid = byteaPid;
                LoaderBench.time(to - from, lb, i -> byteaLoad(bds, byteaTable, "w" + ((from + i) % n)));
                LoaderBench.backendPid = slimePid;
                LoaderBench.time(to - from, ls, i -> slime.readWorld("w" + ((from + i) % n)));
            }
            loads += loadsPerRound;
        }
        double[] cb = concurrent(n, oneClientTo, last, (i, v) -> byteaSave(bds, byteaTable, "w" + i, versions.get(i).get(v)));
        double[] cs = concurrent(n, oneClientTo, last, (i, v) -> slime.saveWorld("w" + i, versions.get(i).get(v), tokens[i]));
        int csaves = n * (last - oneClientTo);
        if (DEFER) {
            System.out.printf("catch-up after each round of saves by one client: %d saves converted in %.0f ms: "
                    + "%.2f ms a save%n", catchUpSaves, catchUpSeconds * 1e3, catchUpSeconds * 1e3 / Math.max(1, catchUpSaves));
            long pendingRows = scalarLong("SELECT count(*) FROM " + loaderTable + "_pending");
            long t0 = System.nanoTime();
            long converted = catchUp(worker, loaderTable);
            double ms = (System.nanoTime() - t0) / 1e6;
            System.out.printf("catch-up: %d pending saves, %d converted (the rest past keep) in %.0f ms: "
                    + "%.2f ms a converted save%n", pendingRows, converted, ms, ms / Math.max(1, converted));
            worker.close();
        }
        Db.execute("VACUUM");
        long hotS = slimeBytes(loaderTable), hotB = byteaBytes(byteaTable);
        for (int i = 0; i < n; i++)
            slime.releaseLease("w" + i, tokens[i]);
        Db.execute("SELECT slime_gc()");
        Db.execute("SELECT slime_settle(older_than => '0')");
        Db.execute("SELECT slime_gc()");
        Db.execute("SELECT slime_settle(older_than => '0')");
        Db.execute("VACUUM");
        long coldS = slimeBytes(loaderTable), coldB = byteaBytes(byteaTable);
        // what the data takes, compacted: every table of both rewritten (VACUUM FULL), the bytea
        // table then holding the newest file of each world only
        Db.execute("VACUUM FULL");
        long fullS = slimeBytes(loaderTable), fullB = byteaBytes(byteaTable);
        try (Connection c = ds.getConnection(); ResultSet r = c.createStatement().executeQuery(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c WHERE c.relkind = 'r' "
                + "AND pg_total_relation_size(c.oid) > 0 AND c.relnamespace = 'public'::regnamespace "
                + "ORDER BY 2 DESC")) {
            StringBuilder b = new StringBuilder("after VACUUM FULL, bytes (heap, TOAST and indexes):");
            while (r.next())
                b.append(String.format(" %s %,d;", r.getString(1), r.getLong(2)));
            System.out.println(b);
        }
        long entries = scalarLong("SELECT count(*) FROM slime_store");
        long packs = scalarLong("SELECT count(*) FROM slime_store_packs");
        System.out.printf("%n%s: %d worlds, versions 1-%d saved by one connection (then %d-%d by 4), keep => 10, %s%n",
                label, n, oneClientTo - 1, oneClientTo, last - 1, WHOLE ? "whole files kept (no _frames table: before issue #34)"
                        : "framed form (issue #34)");
        System.out.println("| | slime loader | bytea row | ratio |");
        System.out.println("|---|---:|---:|---:|");
        row("saves/s, 1 client", String.format("%.1f", saves / ss[0]), String.format("%.1f", saves / sb[0]), sb[0] / ss[0]);
        row("saves/s, 4 clients", String.format("%.1f", csaves / cs[0]), String.format("%.1f", csaves / cb[0]), cb[0] / cs[0]);
        row("worst save, 4 clients (ms)", String.format("%.1f", cs[1] * 1e3), String.format("%.1f", cb[1] * 1e3), cs[1] / cb[1]);
        row("loads/s, 1 client", String.format("%.1f", loads / ls[0]), String.format("%.1f", loads / lb[0]), lb[0] / ls[0]);
        row("WAL a save (bytes)", String.format("%,d", walS / saves), String.format("%,d", walB / saves), (double) walS / walB);
        if (DEFER)
            // a deferred save's conversion is WAL too, written later by the catch-up (store entries, the save's value)
            row("WAL a save with its catch-up (bytes)", String.format("%,d", (walS + walC) / saves), String.format("%,d", walB / saves),
                    (double) (walS + walC) / walB);
        row("backend CPU a save (ms)", String.format("%.2f", ss[1] * 1e3 / saves), String.format("%.2f", sb[1] * 1e3 / saves),
                ss[1] / sb[1]);
        row("backend CPU a load (ms)", String.format("%.2f", ls[1] * 1e3 / loads), String.format("%.2f", lb[1] * 1e3 / loads),
                ls[1] / lb[1]);
        row("disk a world, hot: newest + 10 saves (bytea: newest)", String.format("%,d", hotS / n), String.format("%,d", hotB / n),
                (double) hotS / hotB);
        row("disk a world, after release, slime_gc(), slime_settle()", String.format("%,d", coldS / n), String.format("%,d", coldB / n),
                (double) coldS / coldB);
        row("the same after VACUUM FULL of both (bytea: newest only)", String.format("%,d", fullS / n), String.format("%,d", fullB / n),
                (double) fullS / fullB);
        System.out.printf("store: %d entries in %d packs; the bytea table's file %.0f KB a world on average%n", entries, packs,
                versions.stream().mapToLong(l -> l.get(l.size() - 1).length).sum() / 1024.0 / n);
        // what a world's bytes are made of (the data alone, without rows, pages and indexes)
        long packBytes = scalarLong("SELECT COALESCE(sum(octet_length(data)), 0)::bigint FROM slime_store_packs");
        long based = scalarLong("SELECT count(*) FROM slime_store_packs p, generate_series(0, get_byte(p.data, 2) "
                + "+ (get_byte(p.data, 3) << 8) - 1) i WHERE get_byte(p.data, 1) = 3 "
                + "AND get_byte(p.data, 6 + 28 * i + 20) + get_byte(p.data, 6 + 28 * i + 21) > 0");
        long fileBytes = scalarLong("SELECT COALESCE(sum(octet_length(file)), 0)::bigint FROM " + loaderTable + "_worlds");
        long memoBytes = scalarLong("SELECT COALESCE(sum(octet_length(memo)), 0)::bigint FROM " + loaderTable + "_worlds");
        long saveBytes = scalarLong("SELECT COALESCE(sum(pg_column_size(data)), 0)::bigint FROM " + loaderTable);
        long saveRows = scalarLong("SELECT count(*) FROM " + loaderTable);
        System.out.printf("a world's data: packs %,d B (%d entries coded against an earlier version), kept file %,d B, "
                + "memo %,d B, %d saves' values %,d B%n", packBytes / n, based, fileBytes / n, memoBytes / n,
                saveRows / n, saveBytes / n);
    }

    public static void main(String[] args) throws Exception {
        // the loader and the bytea table on connections of their own, as a network runs one or the other
        DataSource ds = Db.pooled(), bds = Db.separatePool();
        if (!"hub".equals(System.getProperty("world"))) {
            List<List<byte[]>> islands = new ArrayList<>();
            for (int i = 0; i < ISLANDS; i++)
                islands.add(island(ds, i));
            run(ds, bds, "islands", "fb_islands", "fb_bytea", islands, 25);
            return;
        }
        // -Dworld=hub: the real ASP file, its chunks edited as the islands' are
        List<List<byte[]>> hub = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "DROP TABLE IF EXISTS bench_island; SELECT setseed(0.5); "
                    + "CREATE TEMP TABLE bench_island AS SELECT slime_from_slimefile(?) w")) {
                ps.setBytes(1, Db.corpusFile("slime/crawlspace/hub.slime"));
                ps.execute();
            }
            hub.add(IslandBench.edited(c, 0, "slime/crawlspace/hub.slime", HUB_VERSIONS));
            c.createStatement().execute("DROP TABLE bench_island");
        }
        run(ds, bds, "hub.slime", "fb_hub", "fb_hub_bytea", hub, 6);
    }
}
