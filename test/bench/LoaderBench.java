package dev.slime.asp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/*
 * The AdvancedSlimePaper loader against a bytea loader (the same saves table
 * with a bytea column, the same lease fence and retention, no chunk store):
 * saves/s and loads/s for 25-chunk islands and a 144-chunk world, over the
 * binary protocol, one pooled connection each. Saves of the two loaders
 * alternate in rounds, so that the shared machine's load falls on both; every
 * save is a file with one chunk no save before had. Prints ratios, and the
 * database's CPU per operation: user + system time of the one backend that
 * serves both loaders, from /proc/<pid>/schedstat (nanoseconds; the
 * client runs on the same machine). Never fails on a number
 * (test/bench/bench_loader.sh runs it).
 */
public final class LoaderBench {

    private static final String REGION = "anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca";
    private static final int ROUNDS = 3;

    private LoaderBench() {
    }

    // A bytea loader: the slime loader's schema with data bytea, its fence, a prune in the saving statement.
    private static final class ByteaLoader {
        private final DataSource ds;

        ByteaLoader(DataSource ds) throws SQLException {
            this.ds = ds;
            Db.scalar("SELECT slime_loader_create('bytea_saves')");
            Db.execute("DROP TRIGGER bytea_saves_store ON bytea_saves");
            Db.execute("ALTER TABLE bytea_saves ALTER COLUMN data TYPE bytea USING data::bytea");
        }

        void save(String world, byte[] file, long token) throws SQLException {
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "WITH ins AS (INSERT INTO bytea_saves (world, token, data) VALUES (?, ?, ?) RETURNING save) "
                    + "DELETE FROM bytea_saves WHERE world = ? AND save <= (SELECT save FROM ins) - ?")) {
                ps.setString(1, world);
                ps.setLong(2, token);
                ps.setBytes(3, file);
                ps.setString(4, world);
                ps.setInt(5, PostgresSlimeLoader.DEFAULT_RETENTION);
                ps.executeUpdate();
            }
        }

        byte[] load(String world) throws SQLException {
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "SELECT data FROM bytea_saves WHERE world = ? ORDER BY save DESC LIMIT 1")) {
                ps.setString(1, world);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBytes(1);
                }
            }
        }
    }

    // The n x n chunks at the region's corner as a slime file.
    private static byte[] island(byte[] region, int n) throws SQLException {
        return (byte[]) Db.scalar("SELECT slime_to_slimefile(slime_agg(slime_put_chunk(NULL, c.x, c.z, "
                + "slime_chunk_nbt(w, c.x, c.z)))) FROM (SELECT slime_import_region(?, 0, 0) w) s, slime_chunks(w) c "
                + "WHERE c.x < ? AND c.z < ?", region, n, n);
    }

    interface Op {
        void run(int i) throws Exception;
    }

    // The backend that serves this thread's pooled connection (IslandBench uses these too).
    static int backendPid;

    // The backend of this thread's connection of ds (a pool keeps it: the one its operations run on).
    static int backendPidOf(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); ResultSet r = c.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            r.next();
            return r.getInt(1);
        }
    }

    // CPU seconds the backend has run so far: /proc/<pid>/schedstat counts nanoseconds; stat (10-ms ticks) where it is missing.
    static double backendCpu() throws Exception {
        Path sched = Path.of("/proc/" + backendPid + "/schedstat");
        if (Files.isReadable(sched))
            return Long.parseLong(Files.readString(sched).split(" ")[0]) / 1e9;
        String stat = Files.readString(Path.of("/proc/" + backendPid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;   // utime, stime (fields 14, 15)
    }

    // Wall and backend CPU seconds that count runs of op take, added to acc[0] and acc[1].
    static void time(int count, double[] acc, Op op) throws Exception {
        double c0 = backendCpu();
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++)
            op.run(i);
        acc[0] += (System.nanoTime() - t0) / 1e9;
        acc[1] += backendCpu() - c0;
    }

    // One size: saves and loads of both loaders, alternating in rounds; prints a line each.
    private static void bench(String label, byte[] file, int perRound, int variantBase, PostgresSlimeLoader slime,
                              ByteaLoader bytea) throws Exception {
        List<byte[]> variants = new ArrayList<>();
        for (int i = 0; i < ROUNDS * perRound + 2; i++)
            variants.add(Db.variant(file, variantBase + i));
        String world = label.replace(' ', '-');
        long ts = slime.acquireLease(world, "bench", Duration.ofHours(1)).orElseThrow();
        long tbytea = (Long) Db.scalar("SELECT slime_lease_acquire('bytea_saves', ?, 'bench', '1 hour')", world);
        // warm-up: a save and a load each
        slime.saveWorld(world, variants.get(0), ts);
        bytea.save(world, variants.get(1), tbytea);
        slime.readWorld(world);
        bytea.load(world);
        double[] saveSlime = new double[2], saveBytea = new double[2], loadSlime = new double[2], loadBytea = new double[2];
        int loads = perRound * 2;
        for (int r = 0; r < ROUNDS; r++) {
            int base = 2 + r * perRound;
            time(perRound, saveBytea, i -> bytea.save(world, variants.get(base + i), tbytea));
            time(perRound, saveSlime, i -> slime.saveWorld(world, variants.get(base + i), ts));
            time(loads, loadBytea, i -> bytea.load(world));
            time(loads, loadSlime, i -> slime.readWorld(world));
        }
        line(label + " saves", file.length, ROUNDS * perRound, saveBytea, saveSlime);
        line(label + " loads", file.length, ROUNDS * loads, loadBytea, loadSlime);
    }

    // One row: ops/s of both loaders, their ratio, the backend's CPU ms per op of both.
    private static void line(String label, int fileBytes, int ops, double[] bytea, double[] slime) {
        System.out.printf("%-22s %7d %9.1f %9.1f %6.2fx %10.2f %10.2f%n", label, fileBytes, ops / bytea[0],
                ops / slime[0], bytea[0] / slime[0], bytea[1] * 1e3 / ops, slime[1] * 1e3 / ops);
    }

    public static void main(String[] args) throws Exception {
        DataSource ds = Db.pooled();
        byte[] region = Db.corpusFile(REGION);
        PostgresSlimeLoader slime = new PostgresSlimeLoader(ds, "slime_saves");
        ByteaLoader bytea = new ByteaLoader(ds);
        System.out.println("loader benchmark: " + REGION + " (1.21.1), " + ROUNDS
                + " rounds, saves each with one new chunk, retention " + PostgresSlimeLoader.DEFAULT_RETENTION
                + ", binary protocol, one connection");
        backendPid = backendPidOf(ds);
        System.out.printf("%-22s %7s %9s %9s %7s %10s %10s%n", "", "file B", "bytea/s", "slime/s", "ratio",
                "bytea CPU", "slime CPU");
        bench("island 25 chunks", island(region, 5), 30, 5000, slime, bytea);
        bench("world 144 chunks", island(region, 12), 12, 6000, slime, bytea);
        System.out.println("ratio: slime / bytea operations per second (targets: saves >= 0.5x, loads >= 0.5x);");
        System.out.println("CPU: the database backend's user + system ms per operation");
    }
}
