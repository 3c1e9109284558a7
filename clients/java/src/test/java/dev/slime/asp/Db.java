package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The test database (SLIME_JDBC_URL, set by test/java.sh), the corpus, and SQL helpers. */
final class Db {

    private Db() {
    }

    /** The data source of the throwaway cluster; the binary protocol for every statement. */
    static DataSource dataSource() {
        String url = System.getenv("SLIME_JDBC_URL");
        if (url == null)
            fail("SLIME_JDBC_URL is not set: run the tests through test/java.sh");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        ds.setPrepareThreshold(-1);
        return ds;
    }

    private static final ThreadLocal<Connection> threadConnection = new ThreadLocal<>();

    /**
     * A data source that gives each thread one connection of {@link #dataSource()},
     * kept open across the loader's calls (as a pool would).
     */
    static DataSource pooled() {
        return pool(threadConnection);
    }

    /**
     * A pool of its own: each thread's connection apart from {@link #pooled()}'s
     * (a benchmark's other system, which a network would run on connections of its own).
     */
    static DataSource separatePool() {
        return pool(new ThreadLocal<>());
    }

    // A data source giving each thread the connection threadConnection keeps, opened once.
    private static DataSource pool(ThreadLocal<Connection> threadConnection) {
        DataSource ds = dataSource();
        return (DataSource) Proxy.newProxyInstance(Db.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> {
                    if (!m.getName().equals("getConnection"))
                        return m.invoke(ds, args);
                    Connection c = threadConnection.get();
                    if (c == null || c.isClosed()) {
                        c = ds.getConnection();
                        threadConnection.set(c);
                    }
                    Connection real = c;
                    return Proxy.newProxyInstance(Db.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (p, cm, cargs) -> cm.getName().equals("close") ? null : cm.invoke(real, cargs));
                });
    }

    /** The first column of the first row of sql with params. */
    static Object scalar(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++)
                ps.setObject(i + 1, params[i]);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        }
    }

    /** Run one statement that returns no rows. */
    static void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    static long count(String sql, Object... params) throws SQLException {
        return ((Number) scalar(sql, params)).longValue();
    }

    static boolean isTrue(String sql, Object... params) throws SQLException {
        return Boolean.TRUE.equals(scalar(sql, params));
    }

    /** The shared corpus (SLIME_CORPUS); fails loudly when it is missing. */
    static Path corpus() {
        String dir = System.getenv("SLIME_CORPUS");
        Path p = dir == null ? null : Path.of(dir);
        if (p == null || !Files.isDirectory(p))
            fail("slime test corpus NOT FOUND (SLIME_CORPUS=" + dir + "): tests that need real files cannot run");
        return p;
    }

    /** Every .slime file of the corpus, sorted; fails when there is none. */
    static List<Path> corpusSlimeFiles() throws IOException {
        try (Stream<Path> s = Files.walk(corpus())) {
            List<Path> files = s.filter(f -> f.toString().endsWith(".slime")).sorted().collect(Collectors.toList());
            assertTrue(!files.isEmpty(), "no .slime file in the corpus");
            return files;
        }
    }

    /** A corpus file's bytes. */
    static byte[] corpusFile(String relative) throws IOException {
        Path p = corpus().resolve(relative);
        if (!Files.isRegularFile(p))
            fail("corpus file missing: " + p);
        return Files.readAllBytes(p);
    }

    /** The slime file version in a file's header (bytes 2-3). */
    static int slimeVersion(byte[] file) {
        return file[2] & 0xff;
    }

    /**
     * The blocks of a version-13 slime file as AdvancedSlimePaper's reader
     * gets them: the 8-byte header, then the chunk block and the extra block,
     * each decompressed with one Zstd.decompress(dst, src) of zstd-jni into
     * the raw length the file declares (v13SlimeWorldDeSerializer). A load
     * gives the chunk block as several frames back to back (the loader's
     * framed form), which that one call must read whole.
     */
    static byte[][] aspBlocks(byte[] file) {
        ByteBuffer in = ByteBuffer.wrap(file);
        byte[] head = new byte[8];
        in.get(head);
        byte[][] blocks = new byte[3][];
        blocks[0] = head;
        for (int b = 1; b <= 2; b++) {
            byte[] src = new byte[in.getInt()];
            byte[] dst = new byte[in.getInt()];
            in.get(src);
            long n = Zstd.decompress(dst, src);
            if (n != dst.length)
                fail("block " + b + ": Zstd.decompress gave " + n + " bytes of the " + dst.length + " declared");
            blocks[b] = dst;
        }
        if (in.hasRemaining())
            fail(in.remaining() + " bytes after the extra block");
        return blocks;
    }

    /**
     * Whether two version-13 slime files are the same file to ASP: the same
     * header and the same raw chunk and extra blocks, read through zstd-jni as
     * ASP reads them (so every field ASP reads is the same); their zstd
     * frames may differ.
     */
    static boolean sameFile(byte[] a, byte[] b) {
        byte[][] x = aspBlocks(a), y = aspBlocks(b);
        for (int i = 0; i < 3; i++)
            if (!Arrays.equals(x[i], y[i]))
                return false;
        return true;
    }

    /**
     * Whether two slime files hold the same world: the same chunks, and the same
     * world compound but for the file's own version and flags (a v12 file is
     * given back as v13).
     */
    static boolean sameWorld(byte[] a, byte[] b) throws SQLException {
        return isTrue("SELECT slime_with_level(a, NULL) = slime_with_level(b, NULL) AND "
                + "slime_nbt_to_json(slime_level(a)) #- '{slime,version}' #- '{slime,flags}' IS NOT DISTINCT FROM "
                + "slime_nbt_to_json(slime_level(b)) #- '{slime,version}' #- '{slime,flags}' "
                + "FROM (SELECT slime_from_slimefile(?) a, slime_from_slimefile(?) b) s", a, b);
    }

    /**
     * Variant i of a slime file: one chunk (the (i mod n)-th) with Paper's chunk
     * data ChunkBukkitValues set to {"slime:test": i}, so one chunk no other
     * variant has.
     */
    static byte[] variant(byte[] file, int i) throws SQLException {
        return (byte[]) scalar("SELECT slime_to_slimefile(slime_put_chunk(w, c.x, c.z, slime_json_to_nbt("
                + "slime_chunk_json(w, c.x, c.z) || jsonb_build_object('ChunkBukkitValues', "
                + "jsonb_build_object('slime:test', ?::int))))) "
                + "FROM (SELECT slime_from_slimefile(?) w) s, LATERAL (SELECT x, z FROM slime_chunks(w) ORDER BY x, z "
                + "OFFSET ?::int % (slime_info(w) ->> 'chunks')::int LIMIT 1) c", i, file, i);
    }

    /** A unique loader table name for one test. */
    static String table(String prefix) {
        return prefix + "_" + Long.toHexString(System.nanoTime());
    }
}
