package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds threads a test started and did not stop. Take a {@link #snapshot()} before the code under test
 * starts anything; afterwards {@link #assertNoNewThreads} fails if threads that were not alive then, and
 * whose names start with a given prefix, are still alive once a grace period has passed.
 *
 * <p>Threads often end a little after the close that stops them (an executor's workers finish their
 * current task), so the check waits for them, by joining the leftover threads, never longer than the
 * grace period in all.
 *
 * <p>Pass a name prefix: some threads are JVM-wide by design and outlive whatever started them, such as
 * the JDK's {@code process reaper} (ignored here) or the AWS CRT's static {@code AwsEventLoop} threads.
 */
public final class ThreadLeakChecker {

    // the JDK's own pooled or on-demand threads: never a leak of the code under test
    private static final Set<String> JDK_THREADS = Set.of("process reaper", "Attach Listener");

    private final Set<Thread> before;

    private ThreadLeakChecker(Set<Thread> before) {
        this.before = before;
    }

    /** Records the threads alive now. */
    public static ThreadLeakChecker snapshot() {
        return new ThreadLeakChecker(liveThreads());
    }

    /** Live threads named {@code namePrefix...} that were not alive at the snapshot. */
    public List<Thread> newThreads(String namePrefix) {
        requireNonNull(namePrefix, "namePrefix is null");
        return liveThreads().stream()
                .filter(thread -> !before.contains(thread))
                .filter(thread -> !JDK_THREADS.contains(thread.getName()))
                .filter(thread -> thread.getName().startsWith(namePrefix))
                .sorted(Comparator.comparing(Thread::getName))
                .toList();
    }

    /**
     * Waits up to {@code grace} for every thread named {@code namePrefix...} that started after the
     * snapshot to end; an empty prefix means every new thread.
     *
     * @throws AssertionError naming the threads still alive after {@code grace}
     */
    public void assertNoNewThreads(String namePrefix, Duration grace) {
        requireNonNull(grace, "grace is null");
        long deadline = System.nanoTime() + grace.toNanos();
        List<Thread> leftovers = newThreads(namePrefix);
        while (!leftovers.isEmpty()) {
            long remainingMillis =
                    Duration.ofNanos(deadline - System.nanoTime()).toMillis();
            if (remainingMillis <= 0) {
                throw new AssertionError(leftovers.size()
                        + " thread(s) named '"
                        + namePrefix
                        + "*' still alive "
                        + grace
                        + " after the code under test should have stopped them: "
                        + leftovers.stream().map(ThreadLeakChecker::describe).collect(Collectors.joining(", ")));
            }
            try {
                // short joins, then look again: a dying pool may start a replacement thread on its way out
                leftovers.get(0).join(Math.min(remainingMillis, 50));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for threads to end", e);
            }
            leftovers = newThreads(namePrefix);
        }
    }

    private static String describe(Thread thread) {
        return thread.getName() + " (" + thread.getState() + (thread.isDaemon() ? ", daemon" : "") + ")";
    }

    private static Set<Thread> liveThreads() {
        return Set.copyOf(Thread.getAllStackTraces().keySet());
    }
}
