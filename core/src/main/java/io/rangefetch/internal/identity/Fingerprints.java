package io.rangefetch.internal.identity;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The digests an {@link AccessIdentity} is made of. Each is SHA-256 over a label naming what it digests, then each
 * part with its length before it, so no two different inputs (an access key id that ends where a secret begins, a
 * credentials digest taken for an SSE-C key) can give the same bytes to hash.
 *
 * <p><b>Public because</b> {@code io.rangefetch.SharedFactories} keys and tags its shared factories with it.
 */
public final class Fingerprints {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] TAG_KEY = randomBytes();

    private Fingerprints() {}

    /** The principal of a key pair: its access key id and secret (a session token names no other principal). */
    static byte[] credentials(String accessKeyId, String secretAccessKey) {
        return digest("rangefetch credentials v1", accessKeyId, secretAccessKey);
    }

    /** Unsigned requests: every anonymous reader is the same nobody. */
    static byte[] anonymous() {
        return digest("rangefetch anonymous v1");
    }

    /** An SSE-C key, given as S3 takes it: base64 of its 32 bytes. */
    static byte[] sseKey(String base64Key) {
        return digest("rangefetch sse-c v1", base64Key);
    }

    /**
     * An identity nothing else can have: a client whose credentials cannot be told, or credentials that could not
     * be resolved. It shares nothing, which is always safe.
     */
    static byte[] unique() {
        return digest("rangefetch unique v1", HexFormat.of().formatHex(randomBytes()));
    }

    /**
     * A short tag of a digest for logs: a keyed hash under a key drawn at random for this JVM, so a line tells two
     * digests apart without offering anything a guessed secret could be checked against.
     */
    public static String tag(byte[]... digests) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(TAG_KEY, "HmacSHA256"));
            for (byte[] digest : digests) {
                mac.update(digest);
            }
            return HexFormat.of().formatHex(mac.doFinal(), 0, 4);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
        }
    }

    private static byte[] randomBytes() {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        return random;
    }

    /**
     * The settings a shared factory is made from (a file system's or a FileIO's, secrets among them), for the key it
     * is shared under: each part, in order, under {@code label}.
     */
    public static byte[] settings(String label, Iterable<String> parts) {
        MessageDigest digest = sha256();
        update(digest, label);
        for (String part : parts) {
            update(digest, part == null ? "\u0000null" : part);
        }
        return digest.digest();
    }

    private static byte[] digest(String label, String... parts) {
        MessageDigest digest = sha256();
        update(digest, label);
        for (String part : parts) {
            update(digest, part == null ? "" : part);
        }
        return digest.digest();
    }

    private static void update(MessageDigest digest, String part) {
        byte[] bytes = part.getBytes(UTF_8);
        digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        digest.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
