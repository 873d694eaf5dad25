package io.rangefetch.hadoop;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractStreamIOStatisticsTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;

/**
 * Hadoop's {@link AbstractContractStreamIOStatisticsTest} on S3A with Rangefetch's streams: the input
 * statistics keys S3A's streams publish, plus Rangefetch's own. The output stream is S3A's own. No test excluded.
 */
abstract class RangefetchContractStreamIOStatisticsSuite extends AbstractContractStreamIOStatisticsTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, getClass());
    }

    @Override
    public List<String> inputStreamStatisticKeys() {
        return List.of(
                StreamStatisticNames.STREAM_READ_BYTES,
                StreamStatisticNames.STREAM_READ_OPERATIONS,
                StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS,
                StreamStatisticNames.STREAM_READ_OPENED,
                "rangefetch_get_requests",
                "rangefetch_cache_hits",
                "rangefetch_prefetched_bytes",
                "rangefetch_retries",
                "rangefetch_throttled_responses",
                "rangefetch_hedges_sent");
    }

    @Override
    public List<String> outputStreamStatisticKeys() {
        return List.of(
                StreamStatisticNames.STREAM_WRITE_BYTES,
                StreamStatisticNames.STREAM_WRITE_BLOCK_UPLOADS,
                StreamStatisticNames.STREAM_WRITE_EXCEPTIONS);
    }
}
