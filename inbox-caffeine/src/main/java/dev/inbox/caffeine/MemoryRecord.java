package dev.inbox.caffeine;

import org.jspecify.annotations.Nullable;

/**
 * One record of {@link CaffeineInboxStore}, kept small because a store may hold millions: a held
 * claim keeps its owner's token; a completed one keeps only a 64-bit hash of it, enough to let
 * the same owner complete again and never worth a collision between two random 128-bit tokens.
 */
abstract sealed class MemoryRecord permits MemoryRecord.Held, MemoryRecord.Done {

    /** The ticker instant the lease or the retention ends. */
    final long expiresAt;

    final @Nullable String fingerprint;

    private MemoryRecord(long expiresAt, @Nullable String fingerprint) {
        this.expiresAt = expiresAt;
        this.fingerprint = fingerprint;
    }

    /** An IN_PROGRESS claim. */
    static final class Held extends MemoryRecord {
        final String owner;

        Held(String owner, long expiresAt, @Nullable String fingerprint) {
            super(expiresAt, fingerprint);
            this.owner = owner;
        }
    }

    /** A COMPLETED record, with the result its owner stored, if any. */
    static final class Done extends MemoryRecord {
        final long ownerHash;
        final byte @Nullable [] result;

        Done(long ownerHash, long expiresAt, @Nullable String fingerprint, byte @Nullable [] result) {
            super(expiresAt, fingerprint);
            this.ownerHash = ownerHash;
            this.result = result;
        }
    }

    /** A well-mixed 64-bit hash of an owner token (FNV-1a, then the MurmurHash3 finalizer). */
    static long hashOwner(String owner) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < owner.length(); i++) {
            h = (h ^ owner.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
