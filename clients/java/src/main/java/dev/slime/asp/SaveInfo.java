package dev.slime.asp;

import java.time.Instant;

/**
 * One save in a world's history: its number (per world, growing), when the
 * database wrote it and the fencing token it was written under.
 */
public record SaveInfo(long id, Instant savedAt, long token) {
}
