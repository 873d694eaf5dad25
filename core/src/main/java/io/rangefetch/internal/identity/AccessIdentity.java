package io.rangefetch.internal.identity;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * Who fetched something: the credentials that signed the request and the SSE-C key it carried, as fingerprints.
 * Everything a factory shares between streams (cached blocks, blocks in flight that another read may join, learned
 * lengths and ETags, what a listing found, parsed footers) is keyed by one, next to the object's version, so a stream
 * is only ever served what its own identity fetched.
 *
 * <p><b>What is held.</b> Two SHA-256 digests, never a secret: one of the principal's key pair (see {@link
 * CredentialsIdentities} for what makes two credentials one principal) and one of the SSE-C key, each over a label of
 * its own so the two can never be confused. A digest of a 256-bit key or an AWS secret cannot be turned back into it.
 * {@link #toString()} prints neither: only a short tag, a keyed hash under a key drawn at random for this JVM, so a
 * log line tells two identities apart without offering anything to test a guessed secret against.
 *
 * <p>Immutable and thread-safe; ordered (by its digests) so it can sit in a sorted key.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} resolves one per stream, {@code internal.cache} keys
 * blocks and metadata by it, and {@code internal.read} carries it.
 */
public final class AccessIdentity implements Comparable<AccessIdentity> {
    private static final byte[] NO_SSE_KEY = new byte[0];

    private final byte[] credentials;
    private final byte[] sseKey;
    private final int hash;

    AccessIdentity(byte[] credentials, byte[] sseKey) {
        this.credentials = requireNonNull(credentials, "credentials is null").clone();
        this.sseKey = requireNonNull(sseKey, "sseKey is null").clone();
        this.hash = 31 * Arrays.hashCode(this.credentials) + Arrays.hashCode(this.sseKey);
    }

    /**
     * An identity nothing else has: a signer that cannot be told (a client that does not say what it signs with),
     * or credentials that did not resolve. It shares nothing, which is always safe.
     */
    public static AccessIdentity unique() {
        return ofCredentials(Fingerprints.unique());
    }

    /** An identity of credentials alone: no SSE-C key. */
    static AccessIdentity ofCredentials(byte[] credentials) {
        return new AccessIdentity(credentials, NO_SSE_KEY);
    }

    /** This identity's credentials with the SSE-C key of this digest ({@link Fingerprints#sseKey}). */
    AccessIdentity withSseKey(byte[] sseKeyDigest) {
        return new AccessIdentity(credentials, sseKeyDigest);
    }

    /** Whether requests of this identity carry an SSE-C key. */
    public boolean hasSseKey() {
        return sseKey.length > 0;
    }

    /** Whether both identities sign with the same principal's credentials, whatever SSE-C keys they carry. */
    public boolean sameCredentials(AccessIdentity other) {
        return Arrays.equals(credentials, other.credentials);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AccessIdentity identity
                && Arrays.equals(identity.credentials, credentials)
                && Arrays.equals(identity.sseKey, sseKey);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(AccessIdentity other) {
        int byCredentials = Arrays.compare(credentials, other.credentials);
        return byCredentials != 0 ? byCredentials : Arrays.compare(sseKey, other.sseKey);
    }

    /** A short tag that tells identities apart in this JVM's logs and reveals nothing: see the class note. */
    @Override
    public String toString() {
        return "identity " + Fingerprints.tag(credentials, sseKey) + (hasSseKey() ? " (with an SSE-C key)" : "");
    }
}
