package dev.slime.asp;

import java.io.IOException;

/**
 * A write refused because its fencing token is not the world's current lease
 * (expired, released, superseded by a later grant, or never granted), or a
 * lease another holder runs. Nothing was written; acquire the lease again and
 * reload the world before saving.
 */
public class StaleLeaseException extends IOException {

    public StaleLeaseException(String message) {
        super(message);
    }

    public StaleLeaseException(String message, Throwable cause) {
        super(message, cause);
    }
}
