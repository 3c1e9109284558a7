package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.infernalsuite.asp.api.loaders.SlimeLoader;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The README's "From zero to a running loader", as far as it goes without a
 * Paper server: a role given only the grants of "Installing it" (USAGE and
 * CREATE on its schema) starts the loader, which creates its tables, and
 * saves, reads, leases and deletes worlds through ASP's SlimeLoader calls.
 */
class ReadmePathTest {

    /**
     * A data source that logs in as role with its tables' schema first in the
     * search path and the extension's after it (currentSchema=schema,public),
     * as the README's pool does.
     */
    private static DataSource as(String role, String schema) {
        PGSimpleDataSource ds = (PGSimpleDataSource) Db.dataSource();
        ds.setUser(role);
        ds.setCurrentSchema(schema + ",public");
        ds.setPrepareThreshold(-1);
        return ds;
    }

    @Test
    void gameServerRoleWithTheReadmeGrants() throws Exception {
        String schema = Db.table("readme");
        String role = schema + "_game_server";
        Db.execute("CREATE ROLE " + role + " LOGIN");
        Db.execute("CREATE SCHEMA " + schema);
        Db.execute("GRANT USAGE, CREATE ON SCHEMA " + schema + " TO " + role);
        byte[] file = Db.corpusFile("slime/newsky/skyblock.slime");

        PostgresSlimeLoader loader = new PostgresSlimeLoader(as(role, schema), "skyblock");
        SlimeLoader asp = loader;                              // what ASP's readWorld(loader, ...) is given
        asp.saveWorld("island-42", file);
        assertTrue(asp.worldExists("island-42"));
        assertEquals(List.of("island-42"), asp.listWorlds());
        assertTrue(Db.sameWorld(file, asp.readWorld("island-42")));
        assertEquals(role, Db.scalar("SELECT tableowner::text FROM pg_tables WHERE schemaname = ? AND tablename = 'skyblock'",
                schema));

        // a second server with its own lease, as in "Game servers: a loader with leases"
        PostgresSlimeLoader other = new PostgresSlimeLoader(as(role, schema), "skyblock");
        OptionalLong lease = other.acquireLease("island-7", "server-7", Duration.ofMinutes(2));
        assertTrue(lease.isPresent());
        other.saveWorld("island-7", file, lease.getAsLong());
        other.releaseLease("island-7", lease.getAsLong());
        assertEquals(List.of("island-42", "island-7"), asp.listWorlds());
        asp.deleteWorld("island-42");
        assertEquals(List.of("island-7"), asp.listWorlds());

        // the extension's schema left off the path: the loader cannot start, and says so
        try {
            PGSimpleDataSource bare = (PGSimpleDataSource) as(role, schema);
            bare.setCurrentSchema(schema);
            new PostgresSlimeLoader(bare, "skyblock");
            org.junit.jupiter.api.Assertions.fail("a loader started without the extension on its search path");
        } catch (java.io.UncheckedIOException e) {
            String why = String.valueOf(e.getCause().getMessage());
            assertTrue(why.contains("slime_loader_create") && why.contains("does not exist"), why);
        }
    }
}
