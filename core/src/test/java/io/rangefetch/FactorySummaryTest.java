package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.LogCapture;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A factory that closes says in one INFO line what its streams cost and served: the figures of its statistics. */
class FactorySummaryTest {
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void aClosingFactoryLogsItsFiguresInOneLine() throws Exception {
        byte[] data = TestData.bytes(3 * MIB, 7);
        fixture.client().put(StreamFixture.BUCKET, "summary/one.bin", data);
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(StreamFixture.BUCKET, "summary/one.bin");
        for (int pass = 0; pass < 2; pass++) { // the second pass is served from the cache
            try (SeekableS3InputStream stream = factory.open(location)) {
                byte[] bytes = new byte[data.length];
                stream.readFully(0, bytes, 0, bytes.length);
                assertThat(bytes).isEqualTo(data);
            }
            fixture.awaitQuiet();
        }
        StreamStatistics figures;
        try (LogCapture log = LogCapture.start()) {
            factory.close();
            figures = factory.statistics();
            assertThat(log.anyLineHolds("closed: " + figures.summary() + "; cache peak "))
                    .as("the line holds the statistics' summary: %s", figures.summary())
                    .isTrue();
        }
        assertThat(figures.summary())
                .startsWith(figures.getRequests() + " GETs (0 hedges, 0 retries, 0 resumes, 0 answered 503), ")
                .contains("6.0 MiB served")
                .contains(figures.cacheHits() + " of " + (figures.cacheHits() + figures.cacheMisses())
                        + " reads from the cache")
                .doesNotContain(StreamFixture.BUCKET)
                .doesNotContain("summary/one.bin");
        // the first pass's read sent the GET that learned the version (the object whole, into the cache): a miss,
        // though its bytes came out of the cache; the second pass's read sent nothing
        assertThat(figures.cacheMisses()).as("reads that sent a request").isEqualTo(1);
        assertThat(figures.cacheHits()).as("reads served from the cache").isEqualTo(1);
    }
}
