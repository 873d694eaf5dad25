package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rangefetch's threads as tests of its lifecycle see them: which are alive, which factories own them, and
 * collections asked for until what a collection should bring about has happened.
 */
public final class RangefetchThreads {
    // rangefetch-fetch-12-3, rangefetch-timer-12-1, ...: the number after the pool's name is its factory's
    private static final Pattern FACTORY_THREAD = Pattern.compile("rangefetch-(fetch|exchange|timer)-(\\d+)-.*");

    private RangefetchThreads() {}

    /** A condition that may wait a little for itself (on a monitor, never a sleep) before it answers. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws InterruptedException;
    }

    /** The live threads named {@code rangefetch-...}. */
    public static List<Thread> live() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith("rangefetch-"))
                .toList();
    }

    /** The ids of the factories whose pools own live threads. */
    public static Set<String> owningFactories() {
        Set<String> factories = new TreeSet<>();
        for (Thread thread : live()) {
            Matcher matcher = FACTORY_THREAD.matcher(thread.getName());
            if (matcher.matches()) {
                factories.add(matcher.group(2));
            }
        }
        return factories;
    }

    /**
     * Asks for a full collection, then {@code condition}, until it holds; each collection paces the next (a full
     * collection stops the JVM's threads while it runs).
     *
     * @throws AssertionError naming {@code what} if it does not hold within {@code limit}
     */
    public static void collectUntil(String what, Duration limit, Condition condition) throws InterruptedException {
        requireNonNull(condition, "condition is null");
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            System.gc();
            if (condition.holds()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " not collected within " + limit);
            }
        }
    }
}
