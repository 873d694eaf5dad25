package io.rangefetch.internal.format;

import io.rangefetch.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * ORC file tails written by hand, as the ORC specification lays them out ("File Tail"): the postscript, a
 * protobuf message, then one byte giving its length. Everything before is arbitrary bytes here: the policy reads
 * only the postscript, and the reader's reads only need the right bytes back.
 */
final class OrcTails {
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH_DELIMITED = 2;
    static final int FIXED32 = 5;

    private OrcTails() {}

    /** A postscript as ORC writers write it: footer length, compression, version, metadata length, magic. */
    static byte[] postScript(long footerLength, long metadataLength, String magic) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varintField(out, 1, footerLength);
        varintField(out, 2, 1); // compression: ZLIB
        varintField(out, 3, 256 * 1024); // compression block size
        bytesField(out, 4, new byte[] {0, 12}); // version 0.12, packed
        varintField(out, 5, metadataLength);
        varintField(out, 6, 9); // writer version
        bytesField(out, 8000, magic.getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** {@code length} arbitrary bytes that end with {@code postScript} and its length byte. */
    static byte[] file(int length, byte[] postScript, long seed) {
        byte[] data = TestData.bytes(length, seed);
        System.arraycopy(postScript, 0, data, length - 1 - postScript.length, postScript.length);
        data[length - 1] = (byte) postScript.length;
        return data;
    }

    /** What an ORC reader reads from the end of a file ending with {@code postScript}. */
    static long tailLength(byte[] postScript, long footerLength, long metadataLength) {
        return 1L + postScript.length + footerLength + metadataLength;
    }

    /** {@code postScript} followed by its length byte: the smallest tail there is. */
    static byte[] tail(byte[] postScript) {
        byte[] tail = new byte[postScript.length + 1];
        System.arraycopy(postScript, 0, tail, 0, postScript.length);
        tail[postScript.length] = (byte) postScript.length;
        return tail;
    }

    static void key(ByteArrayOutputStream out, int field, int wireType) {
        varint(out, ((long) field << 3) | wireType);
    }

    static void varintField(ByteArrayOutputStream out, int field, long value) {
        key(out, field, VARINT);
        varint(out, value);
    }

    static void bytesField(ByteArrayOutputStream out, int field, byte[] bytes) {
        key(out, field, LENGTH_DELIMITED);
        varint(out, bytes.length);
        out.writeBytes(bytes);
    }

    static void varint(ByteArrayOutputStream out, long value) {
        long rest = value;
        while ((rest & ~0x7fL) != 0) {
            out.write((int) (rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        out.write((int) rest);
    }
}
