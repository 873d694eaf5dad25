package io.rangefetch.benchmarks.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3ProxyServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

class DataPreparerIT {

    @Test
    void objectsAreWrittenOnceAndRewrittenWhenTheirGeneratorChanges(@TempDir Path scratch) throws Exception {
        TextSpec text = new TextSpec("data/lines.txt", 300_000, 7);
        ParquetSpec parquet = ParquetSpec.ofSize("data/wide.parquet", 200_000, 2, 1);
        try (ProxiedS3 proxiedS3 = ProxiedS3.start(S3ProxyServer::start, NetworkModel.unshaped());
                S3Client s3 = proxiedS3.proxiedClient()) {
            ProxyLedger ledger = proxiedS3.proxy().orElseThrow().ledger();
            proxiedS3.server().createBucket("data");
            DataPreparer preparer = new DataPreparer(s3, "data", scratch);

            Map<String, StoredObject> first = preparer.ensure(List.of(text, parquet));
            long putsAfterFirst = ledger.requests("PUT");
            Map<String, StoredObject> second = preparer.ensure(List.of(text, parquet));
            long putsAfterSecond = ledger.requests("PUT");
            byte[] stored = s3.getObjectAsBytes(
                            request -> request.bucket("data").key(text.key()).range("bytes=0-99"))
                    .asByteArray();
            preparer.ensure(List.of(new TextSpec(text.key(), text.size(), 8)));

            assertThat(putsAfterFirst).isEqualTo(2);
            assertThat(putsAfterSecond).as("nothing written again").isEqualTo(2);
            assertThat(ledger.requests("PUT"))
                    .as("a different seed is a different object")
                    .isEqualTo(3);
            assertThat(second).isEqualTo(first);
            assertThat(first.get(text.key()).length()).isEqualTo(text.size());
            assertThat(stored).isEqualTo(text.bytes(0, 100));
            assertThat(scratch).isEmptyDirectory();
        }
    }
}
