package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every corpus slime file (any version), and files slime_to_slimefile wrote,
 * saved and read back through the loader.
 */
class CorpusTest {

    // 1.18+ region files of the corpus whose worlds a version-13 slime file holds
    private static final String[][] REGIONS = {
        {"anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/prismarine-provider-anvil/1.20.6/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca", "2", "1"},
        {"anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca", "15", "-9"},
    };

    private final String table = Db.table("corpus");
    private final PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), table);

    // Whether slime_to_slimefile can write the world of a slime file back.
    private static boolean writable(byte[] file) {
        try {
            return Db.scalar("SELECT slime_to_slimefile(slime_from_slimefile(?))", (Object) file) != null;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The value of save number save of world has the content hash converting file gives (slime.loader_verify checks it too). */
    private void assertSameValue(String world, long save, byte[] file) throws SQLException {
        assertTrue(Db.isTrue("SELECT slime_content_hash(data) = slime_content_hash(slime_from_slimefile(?)) FROM "
                + table + " WHERE world = ? AND save = ?", file, world, save),
                world + ": save " + save + " is not the value converting the whole file gives");
    }

    @TestFactory
    List<DynamicTest> corpusSlimeFiles() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path p : Db.corpusSlimeFiles()) {
            String world = Db.corpus().relativize(p).toString();
            tests.add(DynamicTest.dynamicTest(world, () -> {
                byte[] file = Files.readAllBytes(p);
                long token = loader.acquireLease(world, "corpus", Duration.ofMinutes(1)).orElseThrow();
                loader.saveWorld(world, file, token);
                assertSameValue(world, 1, file);
                byte[] back = loader.readWorld(world);
                if (writable(file)) {
                    // a world a version-13 file holds: read back as v13 (the same file, read as ASP
                    // reads it through zstd-jni, when it came as v13: its chunk block in frames of its own)
                    assertEquals(13, Db.slimeVersion(back));
                    assertTrue(Db.sameWorld(file, back), "the world read back differs from the one saved");
                    if (Db.slimeVersion(file) == 13)
                        assertTrue(Db.sameFile(file, back), "the file read back differs from the one saved");
                } else {
                    // pre-1.18 chunks (v1, v3 files): given back exactly as they came
                    assertArrayEquals(file, back, "a file v13 cannot hold must come back as given");
                }
                // a file the loader gave out comes back byte for byte, and the second save reuses the first's chunks
                loader.saveWorld(world, back, token);
                assertSameValue(world, 2, back);
                if (Db.slimeVersion(back) == 13)
                    assertTrue(Db.sameFile(back, loader.readWorld(world)), "the file given out comes back another");
                else
                    assertArrayEquals(back, loader.readWorld(world));
                assertEquals(2, loader.listSaves(world).size());
                // history and analytics on these saves: the chunks and block entities of the file
                assertTrue(Db.isTrue("SELECT (slime_info(data) ->> 'chunks')::int = (slime_info(slime_from_slimefile(?)) ->> 'chunks')::int "
                        + "AND (SELECT count(*) FROM slime_block_entities(data)) = (SELECT count(*) FROM slime_block_entities(slime_from_slimefile(?))) "
                        + "FROM " + table + " WHERE world = ? AND save = 1", file, file, world));
                // rollback to the first save: works when a load can give it back, else says why
                if (writable(file)) {
                    loader.rollback(world, 1, token);
                    assertTrue(Db.sameWorld(file, loader.readWorld(world)));
                } else {
                    IOException e = assertThrows(IOException.class, () -> loader.rollback(world, 1, token));
                    assertTrue(e.getMessage().contains("cannot be rolled back to"), e.getMessage());
                }
            }));
        }
        return tests;
    }

    /**
     * Issue #34's lever, as ASP meets it: a load gives the chunk block as a
     * zstd frame per chunk record (small ones grouped), concatenated, and
     * one Zstd.decompress(dst, src) reads them as the one frame the file
     * came with; a save of a few changed chunks writes only their frames.
     */
    @Test
    void loadsAreFramesAspReadsInOneCall() throws Exception {
        // the hub as slime_to_slimefile writes it, so that its variant differs in one chunk record
        byte[] hub = (byte[]) Db.scalar("SELECT slime_to_slimefile(slime_from_slimefile(?))",
                Db.corpusFile("slime/crawlspace/hub.slime"));
        long token = loader.acquireLease("framed", "corpus", Duration.ofMinutes(1)).orElseThrow();
        loader.saveWorld("framed", hub, token);
        long frames = ((Number) Db.scalar("SELECT count(*) FROM " + table + "_frames WHERE world = 'framed'")).longValue();
        assertTrue(frames > 1, "the hub's chunk block is kept as " + frames + " frame(s)");
        byte[] back = loader.readWorld("framed");
        assertTrue(Db.sameFile(hub, back), "ASP's reader reads another file");
        // one chunk changed: one frame written, the others kept (their rows untouched)
        byte[] next = Db.variant(hub, 3);
        String before = Db.table("framed_before");
        Db.execute("CREATE TABLE " + before + " AS SELECT key, xmin::text AS x FROM " + table + "_frames WHERE world = 'framed'");
        loader.saveWorld("framed", next, token);
        assertEquals(frames - 1, ((Number) Db.scalar("SELECT count(*) FROM " + table + "_frames f JOIN " + before + " b "
                + "ON b.key = f.key AND b.x = f.xmin::text WHERE f.world = 'framed'")).longValue());
        Db.execute("DROP TABLE " + before);
        assertTrue(Db.sameFile(next, loader.readWorld("framed")), "ASP's reader reads another file");
    }

    @TestFactory
    List<DynamicTest> filesWrittenBySlimeToSlimefile() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String[] r : REGIONS) {
            tests.add(DynamicTest.dynamicTest(r[0], () -> {
                byte[] file = (byte[]) Db.scalar("SELECT slime_to_slimefile(slime_import_region(?, ?, ?))",
                        Db.corpusFile(r[0]), Integer.parseInt(r[1]), Integer.parseInt(r[2]));
                long token = loader.acquireLease(r[0], "corpus", Duration.ofMinutes(1)).orElseThrow();
                loader.saveWorld(r[0], file, token);
                assertTrue(Db.sameFile(file, loader.readWorld(r[0])), "read back not the same file");
                assertTrue(loader.listWorlds().contains(r[0]));
            }));
        }
        return tests;
    }
}
