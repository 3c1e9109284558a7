package com.infernalsuite.asp.api.loaders;

import com.infernalsuite.asp.api.exceptions.UnknownWorldException;

import java.io.IOException;
import java.util.List;

/*
 * Test-only stand-in for AdvancedSlimePaper 4's SlimeLoader (artifact
 * com.infernalsuite.asp:api): the same package, name and method signatures,
 * so that slime's loader compiles and is tested without ASP's jar. It is
 * never packaged; users build against the real artifact (clients/java/pom.xml).
 */
public interface SlimeLoader {

    byte[] readWorld(String worldName) throws UnknownWorldException, IOException;

    boolean worldExists(String worldName) throws IOException;

    List<String> listWorlds() throws IOException;

    void saveWorld(String worldName, byte[] serializedWorld) throws IOException;

    void deleteWorld(String worldName) throws UnknownWorldException, IOException;
}
