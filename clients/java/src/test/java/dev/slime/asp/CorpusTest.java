package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every corpus slime file, and files slime_to_slimefile wrote, saved and read back through the loader. */
class CorpusTest {

    // 1.18+ region files of the corpus whose worlds a version-13 slime file holds
    private static final String[][] REGIONS = {
        {"anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/prismarine-provider-anvil/1.20.6/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca", "0", "0"},
        {"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca", "2", "1"},
        {"anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca", "15", "-9"},
    };

    private final PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), Db.table("corpus"));

    // Whether slime_to_slimefile can write the world of a slime file back.
    private static boolean writable(byte[] file) {
        try {
            return Db.scalar("SELECT slime_to_slimefile(slime_from_slimefile(?))", (Object) file) != null;
        } catch (SQLException e) {
            return false;
        }
    }

    @TestFactory
    List<DynamicTest> corpusSlimeFiles() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path p : Db.corpusSlimeFiles()) {
            String world = Db.corpus().relativize(p).toString();
            tests.add(DynamicTest.dynamicTest(world, () -> {
                byte[] file = Files.readAllBytes(p);
                int version = Db.slimeVersion(file);
                long token = loader.acquireLease(world, "corpus", Duration.ofMinutes(1)).orElseThrow();
                if (version >= 12 || writable(file)) {
                    // what ASP writes (v12, v13): stored, read back as v13 with the same world
                    assertTrue(writable(file), "a v" + version + " file ASP writes must be writable as v13");
                    loader.saveWorld(world, file, token);
                    byte[] back = loader.readWorld(world);
                    assertEquals(13, Db.slimeVersion(back));
                    assertTrue(Db.sameWorld(file, back), "the world read back differs from the one saved");
                    // a file the loader gave out comes back byte for byte
                    loader.saveWorld(world, back, token);
                    assertArrayEquals(back, loader.readWorld(world));
                    assertEquals(2, loader.listSaves(world).size());
                } else {
                    // older files of pre-1.18 chunks: refused at save time, nothing stored
                    InvalidSlimeFileException e = assertThrows(InvalidSlimeFileException.class,
                            () -> loader.saveWorld(world, file, token));
                    assertTrue(e.getMessage().contains("1.18+"), e.getMessage());
                    assertFalse(loader.worldExists(world));
                }
            }));
        }
        return tests;
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
                assertArrayEquals(file, loader.readWorld(r[0]), "read back not byte-identical");
                assertTrue(loader.listWorlds().contains(r[0]));
            }));
        }
        return tests;
    }
}
