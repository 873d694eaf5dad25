package io.rangefetch.testing;

import java.util.SplittableRandom;

/** Deterministic object contents for tests: every byte depends on its position and a seed. */
public final class TestData {
    private TestData() {}

    public static byte[] bytes(int length, long seed) {
        byte[] data = new byte[length];
        new SplittableRandom(seed).nextBytes(data);
        return data;
    }
}
