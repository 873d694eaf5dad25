package io.rangefetch.internal.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads the lengths an ORC file's postscript gives (see the ORC specification, "File Tail"). The postscript is
 * a small protobuf message: a hand-written reader of its few varint fields saves core a dependency on ORC's
 * or protobuf's jars.
 */
final class OrcPostScript {
    private static final int FOOTER_LENGTH = 1;
    private static final int METADATA_LENGTH = 5;
    private static final int MAGIC = 8000;
    private static final String ORC_MAGIC = "ORC";
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;
    private static final int FIXED32 = 5;

    private OrcPostScript() {}

    /** The tail doesn't parse as ORC's. */
    static final class NotOrcException extends Exception {
        NotOrcException(String message) {
            super(message);
        }
    }

    /**
     * How many bytes from the end the reader will read: the postscript's length byte, the postscript, the footer
     * and the metadata. {@code tail} holds the file's last bytes between position and limit.
     */
    static long tailLength(ByteBuffer tail) throws NotOrcException {
        int size = tail.remaining();
        if (size < 1) {
            throw new NotOrcException("no bytes");
        }
        int postScriptLength = tail.get(tail.limit() - 1) & 0xff;
        if (postScriptLength == 0 || postScriptLength + 1 > size) {
            throw new NotOrcException("postscript length " + postScriptLength + " does not fit in " + size + " bytes");
        }
        int position = tail.limit() - 1 - postScriptLength;
        int end = tail.limit() - 1;
        long footerLength = -1;
        long metadataLength = 0;
        boolean magic = false;
        while (position < end) {
            long[] read = varint(tail, position, end);
            long key = read[0];
            position = (int) read[1];
            int field = (int) (key >>> 3);
            int wireType = (int) (key & 7);
            switch (wireType) {
                case VARINT -> {
                    long[] value = varint(tail, position, end);
                    position = (int) value[1];
                    if (field == FOOTER_LENGTH) {
                        footerLength = value[0];
                    } else if (field == METADATA_LENGTH) {
                        metadataLength = value[0];
                    }
                }
                case LENGTH_DELIMITED -> {
                    long[] length = varint(tail, position, end);
                    position = (int) length[1];
                    if (length[0] < 0 || length[0] > end - position) {
                        throw new NotOrcException("postscript field " + field + " runs past the postscript");
                    }
                    if (field == MAGIC) {
                        byte[] text = new byte[(int) length[0]];
                        tail.get(position, text);
                        magic = ORC_MAGIC.equals(new String(text, StandardCharsets.US_ASCII));
                    }
                    position += (int) length[0];
                }
                case FIXED64 -> position += 8;
                case FIXED32 -> position += 4;
                default -> throw new NotOrcException("postscript field " + field + " has wire type " + wireType);
            }
        }
        if (position != end || !magic || footerLength < 0 || metadataLength < 0) {
            throw new NotOrcException("the postscript has no ORC magic or no footer length");
        }
        try {
            return Math.addExact(1L + postScriptLength, Math.addExact(footerLength, metadataLength));
        } catch (ArithmeticException e) {
            throw new NotOrcException("the postscript's footer and metadata lengths overflow a long");
        }
    }

    /** A varint at {@code position}: its value and the position after it. */
    private static long[] varint(ByteBuffer buffer, int position, int end) throws NotOrcException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= end) {
                throw new NotOrcException("a postscript number runs past the postscript");
            }
            byte next = buffer.get(position++);
            value |= (long) (next & 0x7f) << shift;
            if ((next & 0x80) == 0) {
                return new long[] {value, position};
            }
        }
        throw new NotOrcException("a postscript number is longer than 64 bits");
    }
}
