package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Save history: numbered saves, rollback, retention, and what a save costs in the chunk store. */
class HistoryTest {

    private static final String HUB = "slime/crawlspace/hub.slime";

    @Test
    void historyRollbackRetention() throws Exception {
        String table = Db.table("history");
        PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), table, 100);
        byte[] v0 = Db.corpusFile(HUB);
        byte[] v1 = Db.variant(v0, 1001);   // indexes no other test uses: chunks new to the store
        byte[] v2 = Db.variant(v0, 1002);
        long token = loader.acquireLease("hub", "history", Duration.ofMinutes(1)).orElseThrow();

        loader.saveWorld("hub", v0, token);
        long entries = Db.count("SELECT count(*) FROM slime_store");
        loader.saveWorld("hub", v1, token);
        loader.saveWorld("hub", v2, token);
        // saves after the first cost the chunks that changed: one new store entry each
        assertEquals(entries + 2, Db.count("SELECT count(*) FROM slime_store"));
        // each save row holds 32-byte references, not the chunks
        long refs = Db.count("SELECT (slime_info(data) ->> 'store_refs')::bigint FROM " + table + " WHERE save = 2");
        assertEquals(124, refs);
        assertTrue(Db.count("SELECT octet_length(data::bytea) FROM " + table + " WHERE save = 2") < 124 * 64,
                "a save row should hold references only");

        List<SaveInfo> saves = loader.listSaves("hub");
        assertEquals(List.of(1L, 2L, 3L), saves.stream().map(SaveInfo::id).toList());
        assertTrue(saves.stream().allMatch(s -> s.token() == token));
        assertTrue(!saves.get(0).savedAt().isAfter(saves.get(2).savedAt()));
        assertTrue(Db.sameWorld(v2, loader.readWorld("hub")));

        // rollback: a new save equal to save 1, and the world reads as v0 again
        assertEquals(4, loader.rollback("hub", 1, token));
        assertTrue(Db.sameWorld(v0, loader.readWorld("hub")));
        assertEquals(4, loader.listSaves("hub").size());
        assertThrows(java.io.IOException.class, () -> loader.rollback("hub", 99, token));

        // retention: from the next save on, only the newest 2 are kept
        loader.setRetention(2);
        loader.saveWorld("hub", v1, token);
        assertEquals(List.of(4L, 5L), loader.listSaves("hub").stream().map(SaveInfo::id).toList());
        assertTrue(Db.sameWorld(v1, loader.readWorld("hub")));
        assertThrows(IllegalArgumentException.class, () -> loader.setRetention(0));

        // the token-less ASP methods use the lease this loader holds
        loader.saveWorld("hub", v2);
        assertEquals(token, loader.listSaves("hub").get(1).token());
        assertEquals(7, loader.rollback("hub", 5));
        assertTrue(Db.sameWorld(v1, loader.readWorld("hub")));
    }
}
