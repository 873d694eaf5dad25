package io.rangefetch.internal.format;

import static io.rangefetch.internal.format.OrcTails.bytesField;
import static io.rangefetch.internal.format.OrcTails.key;
import static io.rangefetch.internal.format.OrcTails.postScript;
import static io.rangefetch.internal.format.OrcTails.tail;
import static io.rangefetch.internal.format.OrcTails.varint;
import static io.rangefetch.internal.format.OrcTails.varintField;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OrcPostScriptTest {
    private static final byte[] MAGIC = "ORC".getBytes(StandardCharsets.US_ASCII);

    private static long tailLength(byte[] tail) throws OrcPostScript.NotOrcException {
        return OrcPostScript.tailLength(ByteBuffer.wrap(tail));
    }

    private static void assertNotOrc(byte[] tail, String because) {
        assertThatThrownBy(() -> tailLength(tail))
                .isInstanceOf(OrcPostScript.NotOrcException.class)
                .hasMessageContaining(because);
    }

    @Test
    void theTailIsTheLengthBytePostscriptFooterAndMetadata() throws Exception {
        byte[] postScript = postScript(300_000, 70_000, "ORC");
        assertThat(tailLength(tail(postScript))).isEqualTo(1 + postScript.length + 370_000L);
        byte[] small = postScript(0, 0, "ORC");
        assertThat(tailLength(tail(small))).isEqualTo(1 + small.length);
    }

    @Test
    void aPostscriptWithoutMetadataLengthHasNoMetadataAndFieldsComeInAnyOrder() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bytesField(out, 8000, MAGIC);
        key(out, 7, OrcTails.FIXED64);
        out.writeBytes(new byte[8]);
        key(out, 9, OrcTails.FIXED32);
        out.writeBytes(new byte[4]);
        varintField(out, 1, 1234);
        byte[] postScript = out.toByteArray();
        assertThat(tailLength(tail(postScript))).isEqualTo(1 + postScript.length + 1234L);
    }

    @Test
    void onlyTheBytesBetweenPositionAndLimitAreTheTail() throws Exception {
        byte[] tail = tail(postScript(5000, 10, "ORC"));
        byte[] around = new byte[tail.length + 100];
        java.util.Arrays.fill(around, (byte) 0xff);
        System.arraycopy(tail, 0, around, 60, tail.length);
        ByteBuffer buffer = ByteBuffer.wrap(around, 60, tail.length);
        assertThat(OrcPostScript.tailLength(buffer)).isEqualTo(tail.length + 5010L);
        assertThat(buffer.position()).isEqualTo(60);
    }

    @Test
    void aTailWithoutRoomForItsPostscriptIsNotOrc() {
        assertNotOrc(new byte[0], "no bytes");
        assertNotOrc(new byte[] {1, 2, 0}, "postscript length 0");
        assertNotOrc(new byte[] {1, 2, 3, 4, (byte) 200}, "postscript length 200 does not fit in 5 bytes");
        byte[] tail = tail(postScript(10, 10, "ORC"));
        assertNotOrc(java.util.Arrays.copyOfRange(tail, 1, tail.length), "does not fit");
    }

    @Test
    void aPostscriptWithoutTheMagicOrTheFooterLengthIsNotOrc() {
        assertNotOrc(tail(postScript(10, 10, "ORK")), "no ORC magic");
        assertNotOrc(tail(postScript(10, 10, "orc")), "no ORC magic");
        assertNotOrc(tail(postScript(10, 10, "ORCA")), "no ORC magic");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varintField(out, 5, 10);
        bytesField(out, 8000, MAGIC);
        assertNotOrc(tail(out.toByteArray()), "no footer length");
    }

    @Test
    void aVarintCutOffByThePostscriptsEndIsNotOrc() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bytesField(out, 8000, MAGIC);
        key(out, 1, OrcTails.VARINT);
        out.write(0x80 | 0x12); // a continuation bit, then the postscript ends
        assertNotOrc(tail(out.toByteArray()), "runs past the postscript");

        ByteArrayOutputStream keyOnly = new ByteArrayOutputStream();
        varintField(keyOnly, 1, 10);
        bytesField(keyOnly, 8000, MAGIC);
        keyOnly.write(0x80); // a key cut off
        assertNotOrc(tail(keyOnly.toByteArray()), "runs past the postscript");
    }

    @Test
    void aLengthDelimitedFieldRunningPastThePostscriptIsNotOrc() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varintField(out, 1, 10);
        key(out, 8000, OrcTails.LENGTH_DELIMITED);
        varint(out, 16);
        out.writeBytes(MAGIC);
        assertNotOrc(tail(out.toByteArray()), "field 8000 runs past the postscript");

        ByteArrayOutputStream huge = new ByteArrayOutputStream();
        varintField(huge, 1, 10);
        key(huge, 4, OrcTails.LENGTH_DELIMITED);
        varint(huge, -1L); // 2^64 - 1: negative as a long
        bytesField(huge, 8000, MAGIC);
        assertNotOrc(tail(huge.toByteArray()), "field 4 runs past the postscript");
    }

    @Test
    void aFixedWidthFieldRunningPastThePostscriptIsNotOrc() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bytesField(out, 8000, MAGIC);
        varintField(out, 1, 10);
        key(out, 7, OrcTails.FIXED64);
        out.writeBytes(new byte[5]);
        assertNotOrc(tail(out.toByteArray()), "no ORC magic or no footer length");
    }

    @Test
    void anUnknownWireTypeOrAVarintOverSixtyFourBitsIsNotOrc() {
        ByteArrayOutputStream group = new ByteArrayOutputStream();
        varintField(group, 1, 10);
        key(group, 3, 3); // start group: ORC never writes one
        bytesField(group, 8000, MAGIC);
        assertNotOrc(tail(group.toByteArray()), "wire type 3");

        ByteArrayOutputStream longVarint = new ByteArrayOutputStream();
        key(longVarint, 1, OrcTails.VARINT);
        for (int i = 0; i < 10; i++) {
            longVarint.write(0xff);
        }
        longVarint.write(0x01);
        bytesField(longVarint, 8000, MAGIC);
        assertNotOrc(tail(longVarint.toByteArray()), "longer than 64 bits");
    }

    @Test
    void aNegativeLengthIsNotOrc() {
        assertNotOrc(tail(postScript(-5, 0, "ORC")), "no ORC magic or no footer length");
        assertNotOrc(tail(postScript(10, -5, "ORC")), "no ORC magic or no footer length");
    }
}
