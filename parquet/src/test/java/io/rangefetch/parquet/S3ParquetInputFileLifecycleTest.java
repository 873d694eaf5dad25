package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.util.Arrays;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An input file outlives its streams: closing the one that learned the version loses nothing. */
class S3ParquetInputFileLifecycleTest {
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void theLengthAndNewStreamsStillWorkOnceTheStreamThatLearnedTheVersionIsClosed() throws Exception {
        byte[] data = fixture.put("closed-first.parquet", 3 * MIB);
        StreamFactory factory = fixture.factory();
        S3ParquetInputFile input =
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "closed-first.parquet"));
        SeekableInputStream first = input.newStream();
        byte[] head = new byte[100];
        first.readFully(head);
        first.close();
        assertThat(input.getLength()).isEqualTo(data.length);
        try (SeekableInputStream second = input.newStream()) {
            second.seek(MIB);
            byte[] bytes = new byte[100];
            second.readFully(bytes);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, MIB, MIB + 100));
        }
        assertThat(head).isEqualTo(Arrays.copyOf(data, 100));
        assertThat(fixture.client().requests()).extracting(Request::method).doesNotContain("HEAD");
    }

    @Test
    void aStreamClosedBeforeItLearnedAnythingLeavesTheFileToLearnTheLengthItself() throws Exception {
        byte[] data = fixture.put("closed-at-once.parquet", 3 * MIB);
        S3ParquetInputFile input = new S3ParquetInputFile(
                fixture.factory(), new S3Location(StreamFixture.BUCKET, "closed-at-once.parquet"));
        input.newStream().close(); // its open fetch may be stopped before it learned anything
        assertThat(input.getLength()).isEqualTo(data.length);
        try (SeekableInputStream stream = input.newStream()) {
            byte[] bytes = new byte[10];
            stream.readFully(bytes);
            assertThat(bytes).isEqualTo(Arrays.copyOf(data, 10));
        }
    }
}
