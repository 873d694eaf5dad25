package io.rangefetch.benchmarks.readers;

import java.util.List;

/** The readers a comparison runs, Rangefetch first. */
public final class Readers {

    private Readers() {}

    /**
     * Rangefetch on the SDK's default (Netty) client, then the streams users run today: Iceberg's S3FileIO,
     * S3A's classic and analytics streams, and the analytics accelerator used directly.
     */
    public static List<ReaderUnderTest> baseline() {
        return List.of(
                new RangefetchReader(),
                new IcebergS3FileIOReader(),
                new S3AClassicReader(),
                new S3AAnalyticsReader(),
                new AnalyticsAcceleratorReader());
    }

    /**
     * {@link #baseline()}, Rangefetch on the CRT client, and Iceberg's FileIO variants: RangefetchS3FileIO and
     * S3FileIO with the analytics accelerator.
     */
    public static List<ReaderUnderTest> all() {
        return List.of(
                new RangefetchReader(),
                new RangefetchReader(RangefetchReader.Client.CRT),
                new IcebergS3FileIOReader(IcebergS3FileIOReader.Variant.RANGEFETCH),
                new IcebergS3FileIOReader(),
                new IcebergS3FileIOReader(IcebergS3FileIOReader.Variant.ANALYTICS_ACCELERATOR),
                new S3AClassicReader(),
                new S3AAnalyticsReader(),
                new S3ARangefetchReader(),
                new AnalyticsAcceleratorReader());
    }
}
