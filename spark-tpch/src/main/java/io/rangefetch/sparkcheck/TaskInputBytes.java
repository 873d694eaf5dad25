package io.rangefetch.sparkcheck;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/** Sums the input bytes (Spark's task input metrics) of every task that ends. */
final class TaskInputBytes extends SparkListener {
    final AtomicLong bytes = new AtomicLong();

    void reset() {
        bytes.set(0);
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        if (taskEnd.taskMetrics() != null) {
            bytes.addAndGet(taskEnd.taskMetrics().inputMetrics().bytesRead());
        }
    }
}
