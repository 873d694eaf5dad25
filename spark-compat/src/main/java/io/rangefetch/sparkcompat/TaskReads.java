package io.rangefetch.sparkcompat;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.statistics.IOStatistics;
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
    /**
     * Hadoop 3.3.5 and later keep a thread's stream statistics in its IOStatistics context; 3.3.4 has none, so the
     * context is reached by reflection (this class is compiled against each line's Hadoop).
     */
    private static final Method CURRENT_CONTEXT = contextMethod("getCurrentIOStatisticsContext");

    private static final Method RESET = contextMethod("reset");
    private static final Method SNAPSHOT = contextMethod("snapshot");
    static final boolean HAS_CONTEXT = CURRENT_CONTEXT != null;

    private static final Object LOCK = new Object();
    private static Totals totals = Totals.NONE; // guarded by LOCK

    private static Method contextMethod(String name) {
        try {
            return Class.forName("org.apache.hadoop.fs.statistics.IOStatisticsContext")
                    .getMethod(name);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    private static Object call(Method method, Object target) {
        try {
            return method.invoke(target);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Hadoop's IOStatistics context failed: " + e, e);
        }
    }

    /** What the counted tasks read; Rangefetch's figures are -1 where there is no IOStatistics context. */
    record Totals(long tasks, long s3aBytesRead, long rangefetchBytesServed, long rangefetchGets) {
        static final Totals NONE = new Totals(0, 0, 0, 0);

        Totals plus(long s3aBytes, long served, long gets) {
            return served < 0
                    ? new Totals(tasks + 1, s3aBytesRead + s3aBytes, -1, -1)
                    : new Totals(
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
        private final ThreadLocal<Object> context = new ThreadLocal<>();

        @Override
        public void onTaskStart() {
            bytesAtStart.set(threadBytesRead());
            if (HAS_CONTEXT) {
                Object current = call(CURRENT_CONTEXT, null);
                call(RESET, current);
                context.set(current);
            }
        }

        @Override
        public void onTaskSucceeded() {
            long bytes = threadBytesRead() - bytesAtStart.get();
            long served = -1;
            long gets = -1;
            if (HAS_CONTEXT) {
                Object held = context.get();
                context.remove();
                Map<String, Long> counters = held == null ? Map.of() : ((IOStatistics) call(SNAPSHOT, held)).counters();
                served = counters.getOrDefault("rangefetch_bytes_served", 0L);
                gets = counters.getOrDefault("rangefetch_get_requests", 0L);
            }
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
