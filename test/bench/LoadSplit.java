package dev.slime.asp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;

/**
 * Where a load's backend CPU goes (test/bench/bench_load_split.sh, issue
 * #34): each statement given runs N times a slice on a connection of its own
 * (pgJDBC, binary protocol, prepared), the statements' slices alternating (forward,
 * then backward), 12 slices each, the first 2 not counted; prints the wall
 * time and the backend's CPU time (/proc/pid/schedstat: the client runs on
 * the server's machine) a call, and the bytes a call returns.
 * Never fails on a number.
 */
public final class LoadSplit {

    private LoadSplit() {
    }

    // The backend's CPU time so far, ns.
    private static long cpu(int pid) throws Exception {
        return Long.parseLong(Files.readString(Path.of("/proc/" + pid + "/schedstat")).trim().split(" ")[0]);
    }

    public static void main(String[] sqls) throws Exception {
        Properties p = new Properties();
        p.setProperty("prepareThreshold", "-1");
        int n = Integer.getInteger("calls", 400), slices = 12, warm = 2;
        // a connection (a backend) a statement: on one backend, each statement's allocations
        // leave the heap as the next finds it
        Connection[] cs = new Connection[sqls.length];
        int[] pid = new int[sqls.length];
        try {
            for (int q = 0; q < sqls.length; q++) {
                cs[q] = DriverManager.getConnection(System.getenv("SLIME_JDBC_URL"), p);
                try (ResultSet r = cs[q].createStatement().executeQuery("SELECT pg_backend_pid()")) {
                    r.next();
                    pid[q] = r.getInt(1);
                }
            }
            double[] wall = new double[sqls.length], cpus = new double[sqls.length];
            long[] bytes = new long[sqls.length];
            for (int round = 0; round < slices; round++)
                for (int i = 0; i < sqls.length; i++) {
                    int q = round % 2 == 0 ? i : sqls.length - 1 - i;
                    try (PreparedStatement ps = cs[q].prepareStatement(sqls[q])) {
                        long c0 = cpu(pid[q]), t0 = System.nanoTime();
                        for (int k = 0; k < n; k++)
                            try (ResultSet r = ps.executeQuery()) {
                                r.next();
                                Object o = r.getObject(1);
                                if (o instanceof byte[] && round == 0)
                                    bytes[q] = ((byte[]) o).length;
                            }
                        long t1 = System.nanoTime(), c1 = cpu(pid[q]);
                        if (round >= warm) {
                            wall[q] += (t1 - t0) / 1e3;
                            cpus[q] += (c1 - c0) / 1e3;
                        }
                    }
                }
            System.out.println("| statement | wall a call (µs) | backend CPU a call (µs) | bytes returned |");
            System.out.println("|---|---:|---:|---:|");
            int counted = (slices - warm) * n;
            for (int q = 0; q < sqls.length; q++)
                System.out.printf("| `%s` | %.1f | %.1f | %,d |%n", sqls[q], wall[q] / counted, cpus[q] / counted, bytes[q]);
        } finally {
            for (Connection c : cs)
                if (c != null)
                    c.close();
        }
    }
}
