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
 * The game-server setting of issue #21: 8 islands of 5x5 chunks cut from
 * real 1.18+ regions of the corpus, 50 versions each, every version 1-5
 * chunks edited from the one before (8 bytes of sky light or height map each), each
 * written by slime_to_slimefile. One connection; PostgresSlimeLoader.saveWorld
 * (slime_loader_save, keep => 10) against a bytea table with one row a world
 * (AdvancedSlimePaper's MySQL loader's shape: INSERT .. ON CONFLICT DO UPDATE
 * of the same bytes). Version by version, the 8 bytea saves and the 8 slime
 * saves alternate, then loads of both. Prints saves/s, loads/s, their ratios
 * and the backend's CPU ms per operation (/proc/<pid>/schedstat, nanoseconds, over
 * 400 operations; LoaderBench's helpers). Every version is saved once; version 1 is each island's
 * first save (no memo yet). Never fails on a number (bench_loader.sh runs it).
 */
public final class IslandBench {

    static final String[] REGIONS = {
        "anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca",
        "anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca",
        "anvil-1.18plus/prismarine-provider-anvil/1.20.6/r.0.0.mca",
        "anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca",
        "anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca",
        "anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca#70",
        "anvil-1.18plus/bingley-tag/r.0.-1.mca#9",
        "anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca#38",
    };
    private static final int VERSIONS = Integer.getInteger("versions", 50);
    private static final int LOADS = Integer.getInteger("loads", 2);   // loads of each island after each version

    private IslandBench() {
    }

    private static int n0() {
        return REGIONS.length;
    }

    /*
     * The versions of island i: version 1 is the first complete 5x5 chunks of
     * the region (by x, then z; "#n": the n+1st); each later one edits 1-5 chunks of the one before
     * (8 bytes of its sky light or height map
     * changed).
     */
    static List<byte[]> versions(DataSource ds, int island, String region) throws Exception {
        List<byte[]> files = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.createStatement().execute("DROP TABLE IF EXISTS bench_island; SELECT setseed(0." + (island + 1) + ")");
            try (PreparedStatement ps = c.prepareStatement(
                    "CREATE TEMP TABLE bench_island AS SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, "
                    + "slime_chunk_nbt(w, c.x, c.z))) w FROM (SELECT slime_import_region(?, ?, ?) w) s, "
                    + "LATERAL (SELECT a.x x0, a.z z0 FROM slime_chunks(s.w) a WHERE (SELECT count(*) FROM slime_chunks(s.w) b "
                    + "WHERE b.x BETWEEN a.x AND a.x + 4 AND b.z BETWEEN a.z AND a.z + 4) = 25 ORDER BY a.x, a.z OFFSET ? LIMIT 1) m, "
                    + "slime_chunks(w) c WHERE c.x BETWEEN m.x0 AND m.x0 + 4 AND c.z BETWEEN m.z0 AND m.z0 + 4")) {
                String file = region.replaceAll("#.*", "");
                String[] rxz = file.replaceAll(".*/r\\.(-?\\d+)\\.(-?\\d+)\\.mca$", "$1 $2").split(" ");
                ps.setBytes(1, Db.corpusFile(file));
                ps.setInt(2, Integer.parseInt(rxz[0]));   // the region's coordinates, from its name
                ps.setInt(3, Integer.parseInt(rxz[1]));
                ps.setInt(4, region.contains("#") ? Integer.parseInt(region.replaceAll(".*#", "")) : 0);
                ps.execute();
            }
            files.addAll(edited(c, island, region, VERSIONS));
            c.createStatement().execute("DROP TABLE bench_island");
        }
        return files;
    }

    /*
     * count versions of the world in the temporary table bench_island (w):
     * the first as it is, each later one with 1-5 chunks edited from the one
     * before, each written by slime_to_slimefile.
     */
    static List<byte[]> edited(Connection c, int island, String label, int count) throws Exception {
        List<byte[]> files = new ArrayList<>();
        {
            // 8 bytes of a chunk's first full SkyLight array, else of its MOTION_BLOCKING height map, overwritten
            String edit = "UPDATE bench_island SET w = (SELECT slime_put_chunk(w, c.x, c.z, "
                + "overlay(c.n PLACING int8send(?::bigint) FROM c.at FOR 8)) FROM "
                + "(SELECT x, z, n, coalesce(nullif(p1, 0) + 15 + ?::int % 2040, nullif(p2, 0) + 22 + ?::int % 288) at "
                + "FROM slime_chunks(w) k, LATERAL (SELECT slime_chunk_nbt(w, k.x, k.z) n) e, "
                + "LATERAL (SELECT position('\\x070008536b794c6967687400000800'::bytea IN n) p1, "
                + "position('\\x0c000f4d4f54494f4e5f424c4f434b494e4700000025'::bytea IN n) p2) q "
                + "WHERE p1 > 0 OR p2 > 0 ORDER BY random() LIMIT 1) c) WHERE w IS NOT NULL";
            for (int v = 0; v < count; v++) {
                if (v > 0) {
                    int edits = 1 + (int) (Math.abs((long) (island * 7919 + v * 104729)) % 5);
                    for (int e = 0; e < edits; e++) {
                        try (PreparedStatement ps = c.prepareStatement(edit)) {
                            ps.setLong(1, 1000L * v + e + 1);
                            ps.setInt(2, 8 * (v * 5 + e));
                            ps.setInt(3, 8 * (v * 5 + e));
                            if (ps.executeUpdate() != 1)
                                throw new IllegalStateException(label + ": no chunk to edit");
                        }
                    }
                }
                try (ResultSet r = c.createStatement().executeQuery("SELECT slime_to_slimefile(w), "
                        + "(SELECT count(*) FROM slime_chunks(w)) FROM bench_island")) {
                    r.next();
                    if (v == 0 && label.contains(".mca") && r.getInt(2) != 25)
                        throw new IllegalStateException(label + ": " + r.getInt(2) + " chunks in the window, not 25");
                    files.add(r.getBytes(1));
                }
            }
        }
        return files;
    }

    private static void line(String label, int ops, double[] bytea, double[] slime) {
        System.out.printf("| %-6s | %9.1f | %9.1f | %5.2fx | %8.2f | %8.2f | %5.2fx |%n", label, ops / bytea[0],
                ops / slime[0], bytea[0] / slime[0], bytea[1] * 1e3 / ops, slime[1] * 1e3 / ops,
                slime[1] / Math.max(bytea[1], 1e-9));
    }

    public static void main(String[] args) throws Exception {
        DataSource ds = Db.pooled();
        LoaderBench.backendPid = LoaderBench.backendPidOf(ds);
        List<List<byte[]>> islands = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < REGIONS.length; i++) {
            islands.add(versions(ds, i, REGIONS[i]));
            for (byte[] f : islands.get(i))
                bytes += f.length;
        }
        if (Boolean.getBoolean("split"))
            try (Connection c = ds.getConnection()) {
                c.createStatement().execute("SET track_functions = 'all'");
            }
        if (System.getProperty("keepFiles") != null)   // the files, for profiling a replay: table (island, version, file)
            try (Connection c = ds.getConnection()) {
                c.createStatement().execute("CREATE TABLE " + System.getProperty("keepFiles") + " (island int, version int, file bytea)");
                for (int i = 0; i < n0(); i++)
                    for (int v = 0; v < VERSIONS; v++)
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + System.getProperty("keepFiles") + " VALUES (?, ?, ?)")) {
                            ps.setInt(1, i);
                            ps.setInt(2, v);
                            ps.setBytes(3, islands.get(i).get(v));
                            ps.execute();
                        }
            }
        Db.execute("CREATE TABLE IF NOT EXISTS bytea_worlds (name text PRIMARY KEY, world bytea NOT NULL)");
        PostgresSlimeLoader slime = new PostgresSlimeLoader(ds, "island_saves", 10);
        long[] tokens = new long[REGIONS.length];
        for (int i = 0; i < REGIONS.length; i++)
            tokens[i] = slime.acquireLease("island" + i, "bench", Duration.ofHours(1)).orElseThrow();
        double[] saveSlime = new double[2], saveBytea = new double[2], loadSlime = new double[2], loadBytea = new double[2];
        int n = REGIONS.length;
        for (int v = 0; v < VERSIONS; v++) {
            int ver = v;
            LoaderBench.time(n, saveBytea, i -> {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO bytea_worlds (name, world) VALUES (?, ?) "
                        + "ON CONFLICT (name) DO UPDATE SET world = EXCLUDED.world")) {
                    ps.setString(1, "island" + i);
                    ps.setBytes(2, islands.get(i).get(ver));
                    ps.executeUpdate();
                }
            });
            LoaderBench.time(n, saveSlime, i -> slime.saveWorld("island" + i, islands.get(i).get(ver), tokens[i]));
            LoaderBench.time(n * LOADS, loadBytea, i -> {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                        "SELECT world FROM bytea_worlds WHERE name = ?")) {
                    ps.setString(1, "island" + (i % n));
                    try (ResultSet r = ps.executeQuery()) {
                        r.next();
                        r.getBytes(1);
                    }
                }
            });
            LoaderBench.time(n * LOADS, loadSlime, i -> slime.readWorld("island" + (i % n)));
        }
        System.out.printf("islands: %d of 25 chunks (1.18+ corpus regions), %d versions each (1-5 chunks edited a version), "
                + "%.0f KB a file on average; one connection, binary protocol; slime_loader_save keep => 10 "
                + "vs bytea INSERT .. ON CONFLICT DO UPDATE%n", n, VERSIONS, bytes / 1024.0 / n / VERSIONS);
        System.out.println("| op     |   bytea/s |   slime/s |  ratio | bytea CPU ms | slime CPU ms | CPU ratio |");
        System.out.println("|--------|----------:|----------:|-------:|---------:|---------:|------:|");
        line("saves", n * VERSIONS, saveBytea, saveSlime);
        line("loads", n * VERSIONS * LOADS, loadBytea, loadSlime);
        System.out.println("targets: saves >= 0.5x, slime CPU per save <= 3x bytea's, loads >= 0.7x");
        if (Boolean.getBoolean("split"))
            split(n * VERSIONS);
    }

    // The backend's time per save in each function the saves call (track_functions), flushed by a new connection.
    private static void split(int saves) throws Exception {
        Thread.sleep(1500);
        try (Connection c = Db.dataSource().getConnection(); ResultSet r = c.createStatement().executeQuery(
                "SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions "
                + "WHERE funcname LIKE 'slime%' ORDER BY total_time DESC")) {
            System.out.println("time per save (ms, wall, track_functions = all): function, calls a save, total, self");
            while (r.next())
                System.out.printf("  %-28s %5.2f %7.3f %7.3f%n", r.getString(1), r.getLong(2) / (double) saves,
                        r.getDouble(3) / saves, r.getDouble(4) / saves);
        }
    }
}
