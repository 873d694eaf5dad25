package io.rangefetch.sparkcompat;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.statistics.IOStatisticsContext;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * A Spark plugin ({@code spark.plugins}) that sums, over the tasks that end, what each task's own thread read through
 * {@code s3a://}: the bytes Hadoop's per-thread file system statistics counted (what Spark's task input metrics show)
 * and the {@code rangefetch_*} counters Rangefetch's streams left in the thread's IOStatistics context when they
 * closed. A stream of S3A's own leaves none there, so a query whose tasks show Rangefetch's bytes read through
 * Rangefetch's streams, and the two sums say whether every byte the tasks read did.
 *
 * <p><b>Why an executor plugin.</b> Both figures live on the task's thread, and only a plugin's task callbacks run
 * there: {@link ExecutorPlugin#onTaskStart()} starts the thread's figures afresh and
 * {@link ExecutorPlugin#onTaskSucceeded()} adds them up, after the task has closed its readers and before the
 * executor reports the task finished, so once a job's answer is back on the driver every task of it is counted. In
 * local mode the executor is the driver's JVM: the server reads {@link #totals()} directly.
 *
 * <p>Thread-safe: tasks end on many threads.
 */
public final class TaskReads implements SparkPlugin {
    private static final String SCHEME = "s3a";
    private static final Object LOCK = new Object();
    private static Totals totals = Totals.NONE; // guarded by LOCK

    /** What the counted tasks read. */
    record Totals(long tasks, long s3aBytesRead, long rangefetchBytesServed, long rangefetchGets) {
        static final Totals NONE = new Totals(0, 0, 0, 0);

        Totals plus(long s3aBytes, long served, long gets) {
            return new Totals(
                    tasks + 1, s3aBytesRead + s3aBytes, rangefetchBytesServed + served, rangefetchGets + gets);
        }
    }

    /** The sums since the last {@link #reset()}. */
    static Totals totals() {
        synchronized (LOCK) {
            return totals;
        }
    }

    static void reset() {
        synchronized (LOCK) {
            totals = Totals.NONE;
        }
    }

    @Override
    public DriverPlugin driverPlugin() {
        return null;
    }

    @Override
    public ExecutorPlugin executorPlugin() {
        return new TaskRecorder();
    }

    private static final class TaskRecorder implements ExecutorPlugin {
        // the thread's s3a bytes when its task started: Hadoop's per-thread statistics only ever grow
        private final ThreadLocal<Long> bytesAtStart = ThreadLocal.withInitial(() -> 0L);
        // the thread's IOStatistics context while its task runs. Hadoop maps threads to their contexts by weak
        // references: a context nobody holds is collected with what streams added to it, and the thread's next
        // look-up makes an empty one
        private final ThreadLocal<IOStatisticsContext> context = new ThreadLocal<>();

        @Override
        public void onTaskStart() {
            bytesAtStart.set(threadBytesRead());
            IOStatisticsContext current = IOStatisticsContext.getCurrentIOStatisticsContext();
            current.reset();
            context.set(current);
        }

        @Override
        public void onTaskSucceeded() {
            long bytes = threadBytesRead() - bytesAtStart.get();
            IOStatisticsContext held = context.get();
            context.remove();
            Map<String, Long> counters =
                    held == null ? Map.of() : held.snapshot().counters();
            long served = counters.getOrDefault("rangefetch_bytes_served", 0L);
            long gets = counters.getOrDefault("rangefetch_get_requests", 0L);
            synchronized (LOCK) {
                totals = totals.plus(bytes, served, gets);
            }
        }

        @Override
        public void onTaskFailed(TaskFailedReason reason) {
            // a failed task fails its query: nothing to count
        }

        @SuppressWarnings("deprecation") // the per-thread figures are only reachable this way, as Spark reaches them
        private static long threadBytesRead() {
            long bytes = 0;
            List<FileSystem.Statistics> all = FileSystem.getAllStatistics();
            for (FileSystem.Statistics statistics : all) {
                if (statistics.getScheme().equals(SCHEME)) {
                    bytes += statistics.getThreadStatistics().getBytesRead();
                }
            }
            return bytes;
        }
    }
}
