package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.infernalsuite.asp.api.exceptions.UnknownWorldException;
import com.infernalsuite.asp.api.loaders.SlimeLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network moving in: every corpus slime file, kept by a directory loader
 * like AdvancedSlimePaper's file loader, migrated into PostgresSlimeLoader in
 * the order ASP's migrateWorld runs (read from the current loader, save to
 * the new one, delete from the current one).
 */
class MigrationTest {

    /** A loader of <world>.slime files in one directory, as ASP's FileLoader keeps them. */
    static final class DirectoryLoader implements SlimeLoader {
        private final Path dir;

        DirectoryLoader(Path dir) {
            this.dir = dir;
        }

        private Path file(String world) {
            return dir.resolve(world + ".slime");
        }

        @Override
        public byte[] readWorld(String world) throws UnknownWorldException, IOException {
            if (!worldExists(world))
                throw new UnknownWorldException(world);
            return Files.readAllBytes(file(world));
        }

        @Override
        public boolean worldExists(String world) {
            return Files.isRegularFile(file(world));
        }

        @Override
        public List<String> listWorlds() throws IOException {
            try (Stream<Path> s = Files.list(dir)) {
                return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".slime"))
                        .map(n -> n.substring(0, n.length() - ".slime".length())).sorted().collect(Collectors.toList());
            }
        }

        @Override
        public void saveWorld(String world, byte[] serialized) throws IOException {
            Files.write(file(world), serialized);
        }

        @Override
        public void deleteWorld(String world) throws UnknownWorldException, IOException {
            try {
                Files.delete(file(world));
            } catch (NoSuchFileException e) {
                throw new UnknownWorldException(world);
            }
        }
    }

    /** AdvancedSlimePaper's migrateWorld, step by step. */
    static void migrateWorld(String world, SlimeLoader currentLoader, SlimeLoader newLoader) throws Exception {
        if (newLoader.worldExists(world))
            throw new IllegalStateException("world " + world + " already exists in the new loader");
        byte[] serialized = currentLoader.readWorld(world);
        newLoader.saveWorld(world, serialized);
        currentLoader.deleteWorld(world);
    }

    @Test
    void everyCorpusSlimeFileMigratesIn(@TempDir Path dir) throws Exception {
        DirectoryLoader files = new DirectoryLoader(dir);
        String table = Db.table("migrated");
        PostgresSlimeLoader postgres = new PostgresSlimeLoader(Db.pooled(), table);
        // the directory loader holds every corpus slime file, under a name of its path
        Map<String, byte[]> worlds = new LinkedHashMap<>();
        for (Path p : Db.corpusSlimeFiles()) {
            String world = Db.corpus().relativize(p).toString().replace('/', '-').replace(".slime", "");
            byte[] file = Files.readAllBytes(p);
            files.saveWorld(world, file);
            worlds.put(world, file);
        }
        System.out.println("migration test files: " + worlds.keySet());
        assertEquals(new ArrayList<>(worlds.keySet()), files.listWorlds());
        for (String world : files.listWorlds())
            migrateWorld(world, files, postgres);
        assertTrue(files.listWorlds().isEmpty(), "the old loader still holds worlds");
        assertEquals(new ArrayList<>(worlds.keySet()), postgres.listWorlds());
        for (Map.Entry<String, byte[]> w : worlds.entrySet()) {
            byte[] given = w.getValue();
            byte[] back = postgres.readWorld(w.getKey());
            assertFalse(files.worldExists(w.getKey()));
            assertTrue(Db.isTrue("SELECT slime_content_hash(data) = slime_content_hash(slime_from_slimefile(?)) FROM "
                    + table + " WHERE world = ?", given, w.getKey()), w.getKey() + ": the save is not the file's value");
            if (Db.slimeVersion(back) == 13 && Db.slimeVersion(given) != 13)
                assertTrue(Db.sameWorld(given, back), w.getKey() + ": the world read back differs");
            else if (Db.slimeVersion(given) == 13)
                assertTrue(Db.sameFile(given, back), w.getKey() + ": not the file given");
            else
                assertArrayEquals(given, back, w.getKey() + ": not given back as it came");
        }
    }
}
