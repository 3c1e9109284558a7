package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A game server logged in as a role its loader's owner granted the loader's
 * use (README, "Security", "Sharing a loader"): the loader works unchanged,
 * and the _worlds table (tokens, cached files) stays out of the role's reach.
 */
class SharedLoaderTest {

    private static final String SERVER = "slime_java_server";

    // The test database, as the server's role.
    private static DataSource asServer() {
        PGSimpleDataSource ds = (PGSimpleDataSource) Db.dataSource();
        ds.setUser(SERVER);
        return ds;
    }

    @Test
    void grantedRoleUsesTheLoaderThroughItsFunctionsOnly() throws Exception {
        String table = Db.table("shared");
        new PostgresSlimeLoader(Db.dataSource(), table);
        Db.execute("DO $$ BEGIN CREATE ROLE " + SERVER + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        Db.execute("GRANT SELECT, INSERT ON " + table + " TO " + SERVER);
        try {
            PostgresSlimeLoader server = new PostgresSlimeLoader(asServer(), table);
            OptionalLong lease = server.acquireLease("isle", "server-1", Duration.ofMinutes(1));
            assertTrue(lease.isPresent());
            long token = lease.getAsLong();
            server.saveWorld("isle", Db.corpusFile("slime/crawlspace/hub.slime"), token);
            byte[] back = server.readWorld("isle");
            server.saveWorld("isle", back, token);
            assertArrayEquals(back, server.readWorld("isle"));
            assertEquals(List.of("isle"), server.listWorlds());
            assertEquals(2, server.listSaves("isle").size());
            assertEquals(3, server.rollback("isle", 1, token));
            server.releaseLease("isle", token);
            assertEquals(SERVER, Db.scalar("SELECT leased_by::text FROM " + table + "_worlds WHERE world = 'isle'"));
            try (Connection c = asServer().getConnection(); Statement st = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class,
                        () -> st.executeQuery("SELECT token FROM " + table + "_worlds"));
                assertEquals("42501", e.getSQLState());
            }
        } finally {
            Db.execute("REVOKE ALL ON " + table + " FROM " + SERVER);
        }
    }
}
