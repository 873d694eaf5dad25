package io.rangefetch.it;

import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.orc.StripeInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * ORC files written with Apache ORC's writer, read back through the ORC format policy from a real S3 server:
 * subclassed once per backend. The clients reach the server through a {@link io.rangefetch.testing.proxy.ShapingProxy}
 * that does not shape; its ledger tells the GETs each open and read sends. Where each file's tail starts and how
 * long it is comes from ORC's reader of the local copy ({@link OrcShape#layout}), and every byte read is compared
 * with that copy.
 *
 * <p>What it pins: opening an {@code .orc} key without a length fetches the last {@code orc.tail-size} bytes in
 * the one suffix GET that also learns the length, and a tail that fits in them then costs nothing more; a tail
 * larger than them costs exactly one more GET, of exactly the bytes missing, sent by the policy before the reader
 * asks; the bytes of the tail and the stripes read right.
 *
 * <p>Both files are larger than {@code read.small-object-size} (8 MiB), so the open fetch is a tail, not the whole
 * object.
 */
abstract class OrcReadSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final StreamConfig DEFAULTS = StreamConfig.defaults();
    /** Small enough that the {@link #WIDE} file's tail does not fit; the minimum request size. */
    private static final long SMALL_TAIL_SIZE = 64 * KIB;
    // orc.tail-size's default (the ORC policy is core's own: its setting is not exported, and pinned in core)
    private static final long DEFAULT_TAIL_SIZE = 256 * KIB;

    /** Six string columns in 1 MiB stripes: 12 MB, a tail of a few KiB. */
    private static final OrcShape TYPICAL = new OrcShape("typical.orc", 6, 100_000, 1L << 20);
    /**
     * Forty string columns in 192 KiB stripes: 12 MB, and stripe statistics (a minimum and a maximum string a
     * column a stripe) that make a tail of over 100 KiB.
     */
    private static final OrcShape WIDE = new OrcShape("wide.orc", 40, 16_000, 192L << 10);

    private byte[] typical;
    private OrcShape.Layout typicalLayout;
    private byte[] wide;
    private OrcShape.Layout wideLayout;

    OrcReadSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void writeAndUploadTheFiles(@TempDir Path directory) throws IOException {
        Path typicalPath = TYPICAL.write(directory);
        typical = Files.readAllBytes(typicalPath);
        typicalLayout = OrcShape.layout(typicalPath);
        Path widePath = WIDE.write(directory);
        wide = Files.readAllBytes(widePath);
        wideLayout = OrcShape.layout(widePath);
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, TYPICAL.name(), typical);
            put(s3, WIDE.name(), wide);
        }
    }

    /**
     * Opened knowing nothing, asked its length, then its whole tail read as an ORC reader reads it: one suffix GET
     * of {@code orc.tail-size} bytes, no HEAD. The tail is far under 256 KiB, so it holds the whole ORC tail.
     */
    @Test
    void aTailUnderTheTailSizeCostsOneGetAndNoHead() throws Exception {
        assertThat(typicalLayout.tailLength()).as("ORC tail bytes").isLessThan(DEFAULT_TAIL_SIZE / 4);
        assertThat(typicalLayout.stripes()).as("stripes").hasSizeGreaterThanOrEqualTo(8);
        assertThat((long) typical.length)
                .as("file bytes")
                .isGreaterThan(DEFAULTS.get(SMALL_OBJECT_SIZE))
                .isEqualTo(typicalLayout.fileLength());
        ProxyLedger ledger = countingLedger();
        withFactory(DEFAULTS, factory -> {
            try (SeekableS3InputStream stream = factory.open(location(TYPICAL))) {
                assertThat(stream.length()).isEqualTo(typical.length);
                assertReadsFully(stream, typical, typicalLayout.tailStart(), typicalLayout.tailLength());
            }
        });
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactly("bytes=-" + DEFAULT_TAIL_SIZE);
        assertThat(ledger.heads()).isZero();
    }

    /**
     * With {@code orc.tail-size} at 64 KiB, a tail of over 100 KiB: once the suffix GET lands, the policy reads the
     * postscript and sends one GET of exactly the tail's bytes the suffix did not bring, before the reader asks
     * for them. That GET is held until it is seen, so the test waits for it without betting on time; the reader's
     * read of the whole tail then sends nothing more.
     */
    @Test
    void aTailOverTheTailSizeCostsOneMoreGetOfExactlyTheMissingBytes() throws Exception {
        long length = wide.length;
        assertThat(wideLayout.tailLength())
                .as("ORC tail bytes")
                .isGreaterThan(SMALL_TAIL_SIZE + 32 * KIB)
                .isLessThan(DEFAULTS.get(MAX_REQUEST_SIZE));
        assertThat(length)
                .as("file bytes")
                .isGreaterThan(DEFAULTS.get(SMALL_OBJECT_SIZE))
                .isEqualTo(wideLayout.fileLength());
        String missing = rangeHeader(wideLayout.tailStart(), length - SMALL_TAIL_SIZE);
        HeldGets restOfTail = new HeldGets(missing::equals);
        ProxyLedger ledger = countingLedger();
        // The ORC policy is core's own and not exported: its setting is given as users give it, by key.
        StreamConfig config = StreamConfig.fromProperties(Map.of("orc.tail-size", SMALL_TAIL_SIZE + "B"), "");
        withFactory(
                config,
                factory -> {
                    try (SeekableS3InputStream stream = factory.open(location(WIDE))) {
                        try {
                            restOfTail.awaitHeld(1);
                        } finally {
                            restOfTail.release();
                        }
                        assertReadsFully(stream, wide, wideLayout.tailStart(), wideLayout.tailLength());
                    }
                },
                restOfTail);
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactly("bytes=-" + SMALL_TAIL_SIZE, missing);
        assertThat(ledger.heads()).isZero();
    }

    /** The tail and the first, a middle and the last stripe, read fully at ORC's offsets, are the file's bytes. */
    @Test
    void theTailAndStripesReadAsWritten() throws Exception {
        List<StripeInformation> stripes = typicalLayout.stripes();
        withFactory(DEFAULTS, factory -> {
            try (SeekableS3InputStream stream = factory.open(location(TYPICAL))) {
                assertReadsFully(stream, typical, typicalLayout.tailStart(), typicalLayout.tailLength());
                for (StripeInformation stripe :
                        List.of(stripes.get(0), stripes.get(stripes.size() / 2), stripes.get(stripes.size() - 1))) {
                    assertReadsFully(stream, typical, stripe.getOffset(), stripe.getLength());
                }
            }
        });
    }

    private S3Location location(OrcShape shape) {
        return new S3Location(bucket(), key(shape.name()));
    }

    private static void assertReadsFully(SeekableS3InputStream stream, byte[] file, long position, long length)
            throws IOException {
        byte[] bytes = new byte[Math.toIntExact(length)];
        stream.readFully(position, bytes, 0, bytes.length);
        assertSameBytes(file, bytes, position, length + " bytes read fully at " + position);
    }

    /** The {@code Range} header of {@code [start, end)}. */
    private static String rangeHeader(long start, long end) {
        return "bytes=" + start + "-" + (end - 1);
    }
}
