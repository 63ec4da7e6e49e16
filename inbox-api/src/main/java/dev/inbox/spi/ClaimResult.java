package dev.inbox.spi;

import java.time.Duration;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The answer to one claim: {@link ClaimStatus ACQUIRED}, {@link ClaimStatus DUPLICATE} or {@link
 * ClaimStatus BUSY}, with the details a duplicate or a takeover carries: for a duplicate, whether it
 * came late, how the fingerprints compared and the result stored with the record, if any.
 *
 * <p>Instances are immutable and shared; compare them with {@link #equals(Object)}.
 */
public final class ClaimResult {

    private static final ClaimResult ACQUIRED =
            new ClaimResult(ClaimStatus.ACQUIRED, false, false, FingerprintCheck.NOT_COMPARED);
    private static final ClaimResult TAKEN_OVER =
            new ClaimResult(ClaimStatus.ACQUIRED, false, true, FingerprintCheck.NOT_COMPARED);
    private static final ClaimResult BUSY =
            new ClaimResult(ClaimStatus.BUSY, false, false, FingerprintCheck.NOT_COMPARED);
    private static final ClaimResult[] DUPLICATES = new ClaimResult[FingerprintCheck.values().length * 2];

    static {
        for (FingerprintCheck check : FingerprintCheck.values()) {
            DUPLICATES[check.ordinal() * 2] = new ClaimResult(ClaimStatus.DUPLICATE, false, false, check);
            DUPLICATES[check.ordinal() * 2 + 1] = new ClaimResult(ClaimStatus.DUPLICATE, true, false, check);
        }
    }

    private final ClaimStatus status;
    private final boolean late;
    private final boolean takeover;
    private final FingerprintCheck fingerprint;
    private final byte @Nullable [] result;
    private final @Nullable Duration pastRetention;

    private ClaimResult(ClaimStatus status, boolean late, boolean takeover, FingerprintCheck fingerprint) {
        this(status, late, takeover, fingerprint, null, null);
    }

    private ClaimResult(
            ClaimStatus status,
            boolean late,
            boolean takeover,
            FingerprintCheck fingerprint,
            byte @Nullable [] result,
            @Nullable Duration pastRetention) {
        this.status = status;
        this.late = late;
        this.takeover = takeover;
        this.fingerprint = fingerprint;
        this.result = result;
        this.pastRetention = pastRetention;
    }

    /** The key was new, or the same owner claimed it again. */
    public static ClaimResult acquired() {
        return ACQUIRED;
    }

    /** Another owner's expired lease was taken over: that delivery may still be running. */
    public static ClaimResult takenOver() {
        return TAKEN_OVER;
    }

    /** Another owner's lease is live. */
    public static ClaimResult busy() {
        return BUSY;
    }

    /**
     * A completed record exists.
     *
     * @param late the record is past its retention but not yet removed: the dedup window is
     *     undersized
     * @param fingerprint how the payload fingerprints compared
     */
    public static ClaimResult duplicate(boolean late, FingerprintCheck fingerprint) {
        InboxArguments.requireNonNull(fingerprint, "fingerprint");
        return DUPLICATES[fingerprint.ordinal() * 2 + (late ? 1 : 0)];
    }

    /**
     * A completed record exists and keeps {@code result}, the bytes stored by {@link
     * InboxStore#complete(dev.inbox.InboxKey, OwnerToken, java.time.Duration, byte[])}.
     *
     * @param result the stored bytes (copied), or null when the record keeps none
     */
    public static ClaimResult duplicate(boolean late, FingerprintCheck fingerprint, byte @Nullable [] result) {
        if (result == null) {
            return duplicate(late, fingerprint);
        }
        InboxArguments.requireNonNull(fingerprint, "fingerprint");
        return new ClaimResult(ClaimStatus.DUPLICATE, late, false, fingerprint, result.clone(), null);
    }

    /**
     * This duplicate with how long after its record's retention ended it was found: negative
     * (minus the time left) within retention, zero or more when late. Stores that know the
     * record's expiry by their own clock report it, so that the facade can measure redelivery lag
     * and recommend a retention; other answers are returned unchanged.
     *
     * @throws IllegalArgumentException if {@code pastRetention} is null
     */
    public ClaimResult withPastRetention(Duration pastRetention) {
        InboxArguments.requireNonNull(pastRetention, "pastRetention");
        if (status != ClaimStatus.DUPLICATE) {
            return this;
        }
        return new ClaimResult(status, late, false, fingerprint, result, pastRetention);
    }

    /**
     * For a duplicate whose store reported it ({@link #withPastRetention(Duration)}), how long
     * after its record's retention ended it arrived: negative within retention, zero or more when
     * {@linkplain #isLate() late}; null otherwise. A measurement, not part of the answer: {@link
     * #equals(Object)} ignores it.
     */
    public @Nullable Duration pastRetention() {
        return pastRetention;
    }

    /** What the claim found. */
    public ClaimStatus status() {
        return status;
    }

    /** True when the caller now holds the key. */
    public boolean isAcquired() {
        return status == ClaimStatus.ACQUIRED;
    }

    /** True for a duplicate found past its retention, before its removal (a <em>late duplicate</em>). */
    public boolean isLate() {
        return late;
    }

    /** True for an ACQUIRED that took over another owner's expired lease. */
    public boolean isTakeover() {
        return takeover;
    }

    /** For a duplicate, how the payload fingerprints compared; otherwise {@link FingerprintCheck#NOT_COMPARED}. */
    public FingerprintCheck fingerprint() {
        return fingerprint;
    }

    /**
     * For a duplicate, a copy of the result the completing owner stored with the record; null when
     * it stored none (it completed without one, or this is not a duplicate).
     */
    public byte @Nullable [] storedResult() {
        return result == null ? null : result.clone();
    }

    /** True for a duplicate whose record keeps a result: {@link #storedResult()} is not null. */
    public boolean hasStoredResult() {
        return result != null;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ClaimResult other
                && status == other.status
                && late == other.late
                && takeover == other.takeover
                && fingerprint == other.fingerprint
                && Arrays.equals(result, other.result);
    }

    @Override
    public int hashCode() {
        return ((status.hashCode() * 31 + Boolean.hashCode(late)) * 31 + Boolean.hashCode(takeover)) * 31
                + fingerprint.hashCode()
                + Arrays.hashCode(result);
    }

    @Override
    public String toString() {
        switch (status) {
            case DUPLICATE:
                return "DUPLICATE" + (late ? "(late)" : "")
                        + (fingerprint == FingerprintCheck.NOT_COMPARED ? "" : "[fingerprint " + fingerprint + "]")
                        + (result == null ? "" : "[result of " + result.length + " bytes]");
            case ACQUIRED:
                return takeover ? "ACQUIRED(takeover)" : "ACQUIRED";
            default:
                return status.name();
        }
    }
}
