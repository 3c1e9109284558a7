package dev.slime.asp;

import java.io.IOException;

/**
 * A save refused because its bytes are not a slime file the database can
 * store and give back (malformed, damaged, or a world a version-13 slime file
 * cannot hold). Nothing was written; the message is the database's, naming
 * what is wrong.
 */
public class InvalidSlimeFileException extends IOException {

    public InvalidSlimeFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
