package dev.slime.asp;

import com.infernalsuite.asp.api.exceptions.UnknownWorldException;
import com.infernalsuite.asp.api.loaders.SlimeLoader;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * An AdvancedSlimePaper loader that keeps worlds in PostgreSQL with the slime
 * extension: every save a {@code slime} value in the chunk store (a save
 * after the first costs about the chunks that changed), a history with
 * rollback, and leases with fencing tokens that the database enforces.
 *
 * <p>Every method runs the extension's SQL functions (README, "Game servers:
 * a loader with leases") in autocommit mode on a connection of the data
 * source. The ASP methods without a token ({@link #saveWorld(String, byte[])},
 * {@link #deleteWorld}, {@link #rollback(String, long)}) use the lease this
 * loader holds for the world, acquiring one (holder {@link #holder()}, time to
 * live {@link #setLeaseTtl}) when it holds none.
 *
 * <p>A statement whose connection is lost (a failover: the primary killed,
 * stopped or switched over; SQLSTATE class 08, 57P01-57P03) or that landed on
 * a read-only server (25006) is run again on a new connection until it
 * succeeds or {@link #setFailoverWait} runs out (30 s by default), then the
 * error is thrown. That is safe for every call: a save lost with its
 * connection either committed (the retry is a second save of the same file)
 * or wrote nothing, and the retry carries the same fencing token, so it is
 * refused ({@link StaleLeaseException}) once another holder has the world.
 */
public class PostgresSlimeLoader implements SlimeLoader {

    /** Saves kept per world unless the constructor or {@link #setRetention} says otherwise. */
    public static final int DEFAULT_RETENTION = 10;

    private static final Pattern TABLE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,55}");
    private static final String STALE_LEASE = "55000";

    private final DataSource dataSource;
    private final String table;
    private final String holder = "slime-loader-" + UUID.randomUUID();
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    private volatile int retention;
    private volatile Duration leaseTtl = Duration.ofMinutes(5);
    private volatile Duration failoverWait = Duration.ofSeconds(30);

    /** A loader on table (created with its _worlds table when missing), keeping {@value #DEFAULT_RETENTION} saves per world. */
    public PostgresSlimeLoader(DataSource dataSource, String table) {
        this(dataSource, table, DEFAULT_RETENTION);
    }

    /** A loader on table keeping the newest retention saves of each world. */
    public PostgresSlimeLoader(DataSource dataSource, String table, int retention) {
        if (!TABLE_NAME.matcher(table).matches())
            throw new IllegalArgumentException("table name must match " + TABLE_NAME + ": " + table);
        this.dataSource = dataSource;
        this.table = table;
        setRetention(retention);
        try {
            query("SELECT slime_loader_create(?)", ps -> ps.setString(1, table), rs -> null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create loader table " + table, e);
        }
    }

    /** Keep the newest saves saves of each world from the next save on (at least 1). */
    public void setRetention(int saves) {
        if (saves < 1)
            throw new IllegalArgumentException("retention must be at least 1 save, not " + saves);
        retention = saves;
    }

    public int getRetention() {
        return retention;
    }

    /** Time to live of the leases the token-less methods acquire. */
    public void setLeaseTtl(Duration ttl) {
        if (ttl.isNegative() || ttl.isZero())
            throw new IllegalArgumentException("lease time to live must be positive: " + ttl);
        leaseTtl = ttl;
    }

    /**
     * How long a call whose connection was lost (a failover) is retried on new
     * connections before its error is thrown; zero: never retried.
     */
    public void setFailoverWait(Duration wait) {
        if (wait.isNegative())
            throw new IllegalArgumentException("failover wait must not be negative: " + wait);
        failoverWait = wait;
    }

    /** The holder name this loader's token-less methods acquire leases as. */
    public String holder() {
        return holder;
    }

    // ---- SlimeLoader ---------------------------------------------------------

    @Override
    public byte[] readWorld(String worldName) throws UnknownWorldException, IOException {
        byte[] file = query("SELECT slime_loader_load(?::regclass, ?)",
                ps -> { ps.setString(1, table); ps.setString(2, worldName); },
                rs -> rs.getBytes(1));
        if (file == null)
            throw new UnknownWorldException(worldName);
        return file;
    }

    @Override
    public boolean worldExists(String worldName) throws IOException {
        return query("SELECT EXISTS (SELECT 1 FROM " + table + " WHERE world = ?)",
                ps -> ps.setString(1, worldName), rs -> rs.getBoolean(1));
    }

    @Override
    public List<String> listWorlds() throws IOException {
        return query("SELECT DISTINCT world FROM " + table + " ORDER BY world", ps -> { }, rs -> {
            List<String> worlds = new ArrayList<>();
            do {
                worlds.add(rs.getString(1));
            } while (rs.next());
            return worlds;
        }, new ArrayList<>());
    }

    @Override
    public void saveWorld(String worldName, byte[] serializedWorld) throws IOException {
        saveWorld(worldName, serializedWorld, heldToken(worldName));
    }

    /** Save several worlds, each as {@link #saveWorld(String, byte[])} (ASP versions that have saveWorlds call this). */
    public void saveWorlds(Map<String, byte[]> worlds) throws IOException {
        for (Map.Entry<String, byte[]> w : worlds.entrySet())
            saveWorld(w.getKey(), w.getValue());
    }

    @Override
    public void deleteWorld(String worldName) throws UnknownWorldException, IOException {
        if (!worldExists(worldName))
            throw new UnknownWorldException(worldName);
        long token = heldToken(worldName);
        // no saves deleted: our lease kept everyone else out since the check
        // above, so a retry after a lost connection found its first try done
        fenced(worldName, token, "SELECT slime_loader_delete(?::regclass, ?, ?)",
                ps -> { ps.setString(1, table); ps.setString(2, worldName); ps.setLong(3, token); });
    }

    // ---- leases --------------------------------------------------------------

    /**
     * Acquire the lease of world for holder: a token larger than any granted
     * for the world before, or empty while another holder's lease runs.
     */
    public OptionalLong acquireLease(String world, String holder, Duration ttl) throws IOException {
        Long token = query("SELECT slime_lease_acquire(?::regclass, ?, ?, make_interval(secs => ?))",
                ps -> { ps.setString(1, table); ps.setString(2, world); ps.setString(3, holder); setTtl(ps, 4, ttl); },
                rs -> { long t = rs.getLong(1); return rs.wasNull() ? null : t; });
        if (token == null)
            return OptionalLong.empty();
        held.put(world, token);
        return OptionalLong.of(token);
    }

    /** Extend the running lease token of world to ttl from now; false when it is no longer current. */
    public boolean renewLease(String world, long token, Duration ttl) throws IOException {
        return query("SELECT slime_lease_renew(?::regclass, ?, ?, make_interval(secs => ?))",
                ps -> { ps.setString(1, table); ps.setString(2, world); ps.setLong(3, token); setTtl(ps, 4, ttl); },
                rs -> rs.getBoolean(1));
    }

    /** End the lease token of world (nothing happens when it is no longer current). */
    public void releaseLease(String world, long token) throws IOException {
        held.remove(world, token);
        query("SELECT slime_lease_release(?::regclass, ?, ?)",
                ps -> { ps.setString(1, table); ps.setString(2, world); ps.setLong(3, token); }, rs -> null);
    }

    /**
     * Save a slime file as world's newest save, refused with a
     * {@link StaleLeaseException} unless token is the world's current lease
     * (checked by the statement that writes).
     */
    public void saveWorld(String world, byte[] data, long token) throws IOException {
        fenced(world, token, "SELECT slime_loader_save(?::regclass, ?, ?, ?, ?)", ps -> {
            ps.setString(1, table);
            ps.setString(2, world);
            ps.setLong(3, token);
            ps.setBytes(4, data);
            ps.setInt(5, retention);
        });
    }

    // ---- history -------------------------------------------------------------

    /** The saves of world kept by the retention, oldest first (empty for an unknown world). */
    public List<SaveInfo> listSaves(String world) throws IOException {
        return query("SELECT save, saved_at, token FROM " + table + " WHERE world = ? ORDER BY save",
                ps -> ps.setString(1, world), rs -> {
                    List<SaveInfo> saves = new ArrayList<>();
                    do {
                        saves.add(new SaveInfo(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getLong(3)));
                    } while (rs.next());
                    return saves;
                }, new ArrayList<>());
    }

    /** Make save saveId of world its newest save again, under this loader's lease; the new save's id. */
    public long rollback(String world, long saveId) throws IOException {
        return rollback(world, saveId, heldToken(world));
    }

    /** Make save saveId of world its newest save again, under lease token; the new save's id. */
    public long rollback(String world, long saveId, long token) throws IOException {
        return fenced(world, token, "SELECT slime_loader_rollback(?::regclass, ?, ?, ?, ?)", ps -> {
            ps.setString(1, table);
            ps.setString(2, world);
            ps.setLong(3, saveId);
            ps.setLong(4, token);
            ps.setInt(5, retention);
        });
    }

    // ---- plumbing ------------------------------------------------------------

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static void setTtl(PreparedStatement ps, int i, Duration ttl) throws SQLException {
        ps.setDouble(i, ttl.toNanos() / 1e9);
    }

    // The token this loader holds for world, acquiring a lease when it holds none.
    private long heldToken(String world) throws IOException {
        Long token = held.get(world);
        if (token != null)
            return token;
        OptionalLong granted = acquireLease(world, holder, leaseTtl);
        if (granted.isEmpty())
            throw new StaleLeaseException("world " + world + " is leased by another holder");
        return granted.getAsLong();
    }

    // Run a write under token: its bigint result, a StaleLeaseException when the database refuses the token.
    private long fenced(String world, long token, String sql, Binder binder) throws IOException {
        try {
            return query(sql, binder, rs -> rs.getLong(1));
        } catch (StaleLeaseException e) {
            held.remove(world, token);
            throw e;
        }
    }

    // One statement on its own connection: reader's result for the first row (fallback when there is none).
    private <T> T query(String sql, Binder binder, Reader<T> reader) throws IOException {
        return query(sql, binder, reader, null);
    }

    // Retried on new connections while the failure is a lost connection and failoverWait lasts.
    private <T> T query(String sql, Binder binder, Reader<T> reader, T fallback) throws IOException {
        long deadline = System.nanoTime() + failoverWait.toNanos();
        for (long pause = 50; ; pause = Math.min(pause * 2, 1000)) {
            try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? reader.read(rs) : fallback;
                }
            } catch (SQLException e) {
                if (!connectionLost(e) || System.nanoTime() + pause * 1_000_000 > deadline)
                    throw translate(e);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for a failover: " + sql);
            }
        }
    }

    // A failure that says nothing about the statement: its connection was lost
    // (class 08, the server shutting down or starting) or it reached a standby.
    private static boolean connectionLost(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                || state.equals("25006");
    }

    // The IOException an SQL error means for a caller.
    private static IOException translate(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals(STALE_LEASE))
            return new StaleLeaseException(e.getMessage(), e);
        // malformed or damaged file, a world version 13 cannot hold, a cap
        if (state.equals("22P03") || state.equals("XX001") || state.equals("0A000") || state.equals("54000"))
            return new InvalidSlimeFileException(e.getMessage(), e);
        // the driver's server-side prepared statements (pgJDBC's S_n) live in
        // one server session: a pooler in transaction or statement mode hands
        // the next statement another one
        String msg = e.getMessage() == null ? "" : e.getMessage();
        if ((state.equals("26000") || state.equals("42P05")) && msg.contains("\"S_"))
            return new IOException(msg + " (the JDBC driver's prepared statements are lost behind a pooler in"
                    + " transaction or statement mode: add prepareThreshold=0 to the JDBC URL; README,"
                    + " \"High availability\")", e);
        return new IOException(e.getMessage(), e);
    }
}
