package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * A customer-provided encryption key (SSE-C). S3 needs the key and its MD5 on every request for the object.
 * {@link #toString()} never prints the key.
 */
public final class SseCustomerKey {
    private final String base64Key;
    private final String base64KeyMd5;

    private SseCustomerKey(String base64Key, String base64KeyMd5) {
        this.base64Key = base64Key;
        this.base64KeyMd5 = base64KeyMd5;
    }

    /** A 256-bit AES key given as base64, as S3's {@code x-amz-server-side-encryption-customer-key}. */
    public static SseCustomerKey ofBase64(String base64Key) {
        requireNonNull(base64Key, "base64Key is null");
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64Key);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("SSE-C key is not valid base64", e);
        }
        if (key.length != 32) {
            throw new IllegalArgumentException("SSE-C key must be 256 bits (32 bytes), got " + key.length + " bytes");
        }
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(key);
            return new SseCustomerKey(base64Key, Base64.getEncoder().encodeToString(md5));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required by every Java platform", e);
        }
    }

    public String algorithm() {
        return "AES256";
    }

    public String base64Key() {
        return base64Key;
    }

    public String base64KeyMd5() {
        return base64KeyMd5;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SseCustomerKey key && key.base64Key.equals(base64Key);
    }

    @Override
    public int hashCode() {
        return base64Key.hashCode();
    }

    @Override
    public String toString() {
        return "SseCustomerKey[md5=" + base64KeyMd5 + "]";
    }
}
