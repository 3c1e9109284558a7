package dev.slime.asp;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
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
import org.postgresql.ds.PGSimpleDataSource;

/*
 * test/ha.sh's game server: the AdvancedSlimePaper loader over pgJDBC saving
 * islands for the whole run while the cluster fails over under it.
 *
 *   HaClient save URL TABLE HOLDER WORLD,WORLD... PAUSE_MS STOPFILE
 *       takes a lease on each world (10 min, so that it outlives every
 *       failover of the run), then saves the worlds in turn, file n of table
 *       ha_files as a world's n-th save, PAUSE_MS apart, until STOPFILE exists
 *       or the files run out. The loader retries a save whose connection is
 *       lost (setFailoverWait, 60 s here); a save that still fails ends the
 *       run. Prints, flushed, one line per event:
 *         LEASE world token
 *         ACK world n token content-hash server-address start-ms end-ms
 *         FAIL world n message
 *   HaClient compat URL TABLE
 *       every loader call once (create, lease, save, load, exists, list,
 *       renew, history, rollback, a second lease and a save under the first
 *       token, delete, release): OK or ERR and the message, one line each.
 *   HaClient prepared URL TABLE
 *       two loaders, each on one kept connection (as a pool keeps them),
 *       loading a world 8 times in turn: the driver's server-side prepared
 *       statements meet behind the URL's pooler; OK or ERR and the message.
 * The server address of each ACK is inet_server_addr() of the connection
 * the save ran on (through pgbouncer: of the server connection it got).
 */
public final class HaClient {

    private HaClient() {
    }

    private static String serverAddr(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT host(inet_server_addr())");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    // The server address of the connection this thread got last.
    private static final ThreadLocal<String> lastServer = new ThreadLocal<>();

    // A new connection per call (as PGSimpleDataSource gives), its server's address noted.
    private static DataSource noting(String url) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        return (DataSource) Proxy.newProxyInstance(HaClient.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> {
                    try {
                        Object r = m.invoke(ds, args);
                        if (m.getName().equals("getConnection"))
                            lastServer.set(serverAddr((Connection) r));
                        return r;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    // One connection of url kept for every call (its close ignored), as a pool keeps it.
    private static DataSource kept(String url) throws SQLException {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        Connection real = ds.getConnection();
        Connection c = (Connection) Proxy.newProxyInstance(HaClient.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, args) -> {
                    if (m.getName().equals("close"))
                        return null;
                    try {
                        return m.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(HaClient.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> m.getName().equals("getConnection") ? c : m.invoke(ds, args));
    }

    private static final class SaveFile {
        final byte[] file;
        final String hash;

        SaveFile(byte[] file, String hash) {
            this.file = file;
            this.hash = hash;
        }
    }

    private static List<SaveFile> files(DataSource ds) throws SQLException {
        List<SaveFile> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT file, encode(hash, 'hex') FROM ha_files ORDER BY n");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next())
                out.add(new SaveFile(rs.getBytes(1), rs.getString(2)));
        }
        return out;
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static int save(String url, String table, String holder, String[] worlds, long pause, Path stop)
            throws Exception {
        DataSource ds = noting(url);
        List<SaveFile> files = files(ds);
        PostgresSlimeLoader loader = new PostgresSlimeLoader(ds, table, 1_000_000);
        loader.setFailoverWait(Duration.ofSeconds(60));
        long[] tokens = new long[worlds.length];
        for (int w = 0; w < worlds.length; w++) {
            tokens[w] = loader.acquireLease(worlds[w], holder, Duration.ofMinutes(10)).orElseThrow(
                    () -> new IllegalStateException("lease not granted"));
            say("LEASE " + worlds[w] + " " + tokens[w]);
        }
        for (int n = 1; n <= files.size(); n++) {
            for (int w = 0; w < worlds.length; w++) {
                if (Files.exists(stop))
                    return 0;
                SaveFile f = files.get(n - 1);
                long t0 = System.currentTimeMillis();
                try {
                    loader.saveWorld(worlds[w], f.file, tokens[w]);
                } catch (IOException e) {
                    say("FAIL " + worlds[w] + " " + n + " " + e.getMessage().replace('\n', ' '));
                    return 1;
                }
                say("ACK " + worlds[w] + " " + n + " " + tokens[w] + " " + f.hash + " " + lastServer.get() + " " + t0
                        + " " + System.currentTimeMillis());
                Thread.sleep(pause);
            }
        }
        say("END files exhausted");
        return 0;
    }

    private interface Call {
        String run() throws Exception;
    }

    private static void check(String name, Call call) {
        try {
            say("OK " + name + " " + call.run());
        } catch (Exception e) {
            say("ERR " + name + " " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    private static int compat(String url, String table) throws Exception {
        DataSource ds = noting(url);
        byte[] file = files(ds).get(0).file;
        byte[] other = files(ds).get(1).file;
        PostgresSlimeLoader[] loader = new PostgresSlimeLoader[1];
        long[] token = new long[1];
        check("create", () -> { loader[0] = new PostgresSlimeLoader(ds, table); return table; });
        if (loader[0] == null)
            return 0;
        PostgresSlimeLoader l = loader[0];
        l.setFailoverWait(Duration.ZERO);
        check("acquireLease", () -> { token[0] = l.acquireLease("w", "compat", Duration.ofMinutes(1)).orElseThrow(); return "token " + token[0]; });
        check("acquireLease-other-holder", () -> "granted " + l.acquireLease("w", "other", Duration.ofMinutes(1)).isPresent());
        check("saveWorld", () -> { l.saveWorld("w", file, token[0]); return "saved"; });
        check("saveWorld-again", () -> { l.saveWorld("w", other, token[0]); return "saved"; });
        check("readWorld", () -> l.readWorld("w").length + " bytes");
        check("worldExists", () -> String.valueOf(l.worldExists("w")));
        check("listWorlds", () -> String.valueOf(l.listWorlds()));
        check("renewLease", () -> String.valueOf(l.renewLease("w", token[0], Duration.ofMinutes(1))));
        check("listSaves", () -> l.listSaves("w").size() + " saves");
        check("rollback", () -> "save " + l.rollback("w", l.listSaves("w").get(0).id(), token[0]));
        check("acquireLease-again", () -> { token[0] = l.acquireLease("w", "compat", Duration.ofMinutes(1)).orElseThrow(); return "token " + token[0]; });
        check("saveWorld-stale-token", () -> { l.saveWorld("w", file, token[0] - 1); return "saved"; });
        check("deleteWorld", () -> { l.saveWorld("w", file); l.deleteWorld("w"); return "deleted"; });
        check("releaseLease", () -> { l.releaseLease("w", token[0]); return "released"; });
        return 0;
    }

    private static int prepared(String url, String table) throws Exception {
        byte[] file = files(noting(url)).get(0).file;
        PostgresSlimeLoader a = new PostgresSlimeLoader(kept(url), table);
        PostgresSlimeLoader b = new PostgresSlimeLoader(kept(url), table);
        a.setFailoverWait(Duration.ZERO);
        b.setFailoverWait(Duration.ZERO);
        long token = a.acquireLease("w", "prepared", Duration.ofMinutes(1)).orElseThrow();
        a.saveWorld("w", file, token);
        check("two-kept-connections-8-loads-each", () -> {
            for (int i = 0; i < 8; i++) {
                a.readWorld("w");
                b.readWorld("w");
            }
            return "16 loads";
        });
        return 0;
    }

    public static void main(String[] args) throws Exception {
        int rc;
        switch (args[0]) {
            case "save":
                rc = save(args[1], args[2], args[3], args[4].split(","), Long.parseLong(args[5]), Path.of(args[6]));
                break;
            case "compat":
                rc = compat(args[1], args[2]);
                break;
            case "prepared":
                rc = prepared(args[1], args[2]);
                break;
            default:
                throw new IllegalArgumentException("mode: save, compat or prepared");
        }
        System.exit(rc);
    }
}
