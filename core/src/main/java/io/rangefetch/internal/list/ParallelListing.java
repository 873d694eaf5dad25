package io.rangefetch.internal.list;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.internal.fetch.BackOff;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.time.TimeSource;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A listing of many locations, read lazily in key order: the cursors of {@link ListingPlan}'s groups, run in
 * parallel on the factory's {@link FetchScheduler} (each page a fetch, so listing shares the fetch concurrency
 * limit with reads; the page sender holds the bucket's throttle governor place and retries).
 *
 * <p><b>Order.</b> The groups are disjoint and in key order (buckets in name order, then keys), so the result is
 * the cursors' keys one cursor after the other. The reader consumes one cursor at a time; the next
 * {@code parallelism - 1} cursors run ahead.
 *
 * <p><b>Splits.</b> When a cursor's first page shows how dense its region is, the cursor may hand its later
 * targets to new cursors ({@link ListingCursor#plannedCuts}, {@link SplitPlanner}). The cuts are planned on the
 * thread of that page, outside the lock; the new cursors are inserted right after the one split, under the lock,
 * before its next request is due, as many as keep the bucket within {@code list.cursors}. The cursor being split
 * is still sending, so the reader has not passed it, and every run it has not read stays in key order.
 *
 * <p><b>Memory.</b> Each cursor has at most {@value #PAGES_AHEAD} pages waiting, or one fewer and a request in
 * flight, besides the page being read: a cursor sends its next page as soon as the one before arrives, so a
 * cursor the reader has not reached yet still pages on (a cursor that must restart once costs no round trip of
 * the reader's), and stops {@value #PAGES_AHEAD} pages ahead.
 *
 * <p><b>Ending.</b> {@link #close()} cancels every queued or running page and drops the pages held; a failed page
 * fails the next {@link #next()} (a reader waits no longer than {@code pageWait} for a page, when set: a task on the
 * factory's {@link TimeSource} scheduler wakes it at that deadline, measured on its ticker); closing the factory
 * abandons queued pages, which fails the listing the same way.
 *
 * <p>Thread-safe. One lock guards the run list and the cursors' state; it is never held while a page is sent or
 * submitted, and a cursor's {@link ListingCursor} is only touched by the one thread its single request in flight
 * runs on (its split too, which that thread makes under the lock).
 *
 * <p><b>Public because</b> {@code io.rangefetch.ObjectListing} starts it and is the caller's view of it.
 */
public final class ParallelListing implements Closeable {
    /** How often a waiting reader looks for pages an executor dropped (see {@link FetchScheduler}). */
    private static final long DROP_CHECK_MILLIS = 500;
    /** The most pages a cursor holds for the reader (a page is at most 1,000 keys). */
    static final int PAGES_AHEAD = 2;

    /** Sends one page's request: the factory's way, with its governor, retries and statistics. */
    @FunctionalInterface
    public interface PageSender {
        ListPage send(ListRequest request, FetchAbort abort) throws IOException;
    }

    private final int parallelism;
    private final int maxCursors;
    private final Duration pageWait;
    private final FetchScheduler scheduler;
    private final TimeSource time;
    private final PageSender sender;
    private final Consumer<ListedObject> learned;
    private final Object lock = new Object();
    // Guarded by lock. Runs are in key order; a split inserts new runs right after the one it splits.
    private final List<Run> runs;
    private int consumed;
    private Iterator<ListedObject> page = List.<ListedObject>of().iterator();
    private IOException failure;
    private boolean closed;

    private ParallelListing(
            List<Run> runs,
            ListingSettings settings,
            FetchScheduler scheduler,
            TimeSource time,
            PageSender sender,
            Consumer<ListedObject> learned) {
        this.runs = runs;
        this.parallelism = settings.parallelism();
        this.maxCursors = settings.cursors();
        this.pageWait = settings.pageWait();
        this.scheduler = scheduler;
        this.time = time;
        this.sender = sender;
        this.learned = learned;
    }

    /**
     * Starts listing {@code keysByBucket} (each bucket's wanted keys: a key ending in {@code /} names what is under
     * it, any other also names itself: see {@link ListingPlan}); {@code learned} hears of every object kept, on a
     * fetch thread, before the reader can see it. A bucket named like an S3 Express directory bucket
     * ({@code --x-s3}) is listed one location at a time, as those list unsorted and know no {@code StartAfter}.
     */
    public static ParallelListing start(
            Map<String, ? extends Collection<String>> keysByBucket,
            ListingSettings settings,
            FetchScheduler scheduler,
            TimeSource time,
            PageSender sender,
            Consumer<ListedObject> learned) {
        requireNonNull(settings, "settings is null");
        SortedMap<String, Collection<String>> buckets = new TreeMap<>(Utf8Order.ORDER);
        buckets.putAll(keysByBucket);
        List<Run> runs = new ArrayList<>();
        buckets.forEach((bucket, keys) -> {
            List<ListTarget> targets = new ArrayList<>();
            keys.forEach(key -> targets.addAll(ListingPlan.targetsOf(key)));
            List<ListTarget> disjoint = ListingPlan.disjoint(targets);
            if (isDirectoryBucket(bucket)) {
                disjoint.forEach(
                        target -> runs.add(new Run(ListingCursor.unsorted(bucket, target, settings.pageSize()))));
            } else {
                ListingPlan.groups(disjoint, settings.cursors(), settings.pageSize())
                        .forEach(group -> runs.add(new Run(
                                ListingCursor.sorted(bucket, group, settings.pageSize(), settings.cursors() > 1))));
            }
        });
        ParallelListing listing = new ParallelListing(
                runs,
                settings,
                requireNonNull(scheduler, "scheduler is null"),
                requireNonNull(time, "time is null"),
                requireNonNull(sender, "sender is null"),
                requireNonNull(learned, "learned is null"));
        listing.send(listing.due());
        return listing;
    }

    /** S3 Express One Zone directory buckets end their names in {@code --x-s3}. */
    static boolean isDirectoryBucket(String bucket) {
        return bucket.endsWith("--x-s3");
    }

    /** How many cursors the listing runs so far, splits included (for tests). */
    int cursorCount() {
        synchronized (lock) {
            return runs.size();
        }
    }

    /**
     * The next object in key order, or {@code null} at the end. Waits for the page that holds it: fails with the
     * listing's failure (an {@link IOException} naming the bucket and prefix), {@link InterruptedIOException} on
     * an interrupt (the flag stays set) or when {@code pageWait} passes.
     */
    public ListedObject next() throws IOException {
        long deadline = time.deadlineAfter(pageWait); // none for a zero wait
        AtomicBoolean expired = new AtomicBoolean();
        TimeSource.Timer timer = null;
        try {
            while (true) {
                List<Pending> due;
                synchronized (lock) {
                    if (closed) {
                        throw new IOException("The listing is closed");
                    }
                    if (failure != null) {
                        throw failure;
                    }
                    if (page.hasNext()) {
                        return page.next();
                    }
                    if (consumed == runs.size()) {
                        return null;
                    }
                    Run run = runs.get(consumed);
                    if (!run.ready.isEmpty()) {
                        page = run.ready.remove().iterator();
                    } else if (run.next == null && !run.sending) {
                        consumed++;
                    } else {
                        if (timer == null) {
                            // the first wait of this call: the scheduler wakes it at the deadline
                            timer = time.scheduleAt(deadline, () -> {
                                expired.set(true);
                                synchronized (lock) {
                                    lock.notifyAll();
                                }
                            });
                        }
                        waitForPage(run, deadline, expired);
                    }
                    due = due();
                }
                send(due);
            }
        } finally {
            if (timer != null) {
                timer.cancel();
            }
        }
    }

    private void waitForPage(Run run, long deadline, AtomicBoolean expired) throws IOException {
        if (expired.get() || time.passed(deadline)) {
            throw new InterruptedIOException("No page of the listing of s3://" + run.cursor.bucket() + "/"
                    + run.cursor.prefix() + " came within read.deadline");
        }
        try {
            // woken by a page, a failure, close or the deadline's task; the bound only paces the look for pages
            // an executor dropped, and decides nothing
            TimeUnit.MILLISECONDS.timedWait(lock, DROP_CHECK_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while listing s3://" + run.cursor.bucket() + "/" + run.cursor.prefix());
            interrupted.initCause(e);
            throw interrupted;
        }
        scheduler.reclaimDropped();
    }

    /** Stops every cursor: queued and running pages are cancelled, held pages dropped. Idempotent. */
    @Override
    public void close() {
        List<FetchScheduler.Ticket> tickets = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (Run run : runs) {
                run.ready.clear();
                run.next = null;
                if (run.ticket != null) {
                    tickets.add(run.ticket);
                }
            }
            page = List.<ListedObject>of().iterator();
            lock.notifyAll();
        }
        tickets.forEach(FetchScheduler.Ticket::cancel);
    }

    private record Pending(Run run, ListRequest request) {}

    /** The requests to send now: cursors in the window with nothing in flight and room for one more page. */
    private List<Pending> due() {
        List<Pending> due = new ArrayList<>();
        if (closed || failure != null) {
            return due;
        }
        for (int i = consumed; i < Math.min(runs.size(), consumed + parallelism); i++) {
            Run run = runs.get(i);
            if (!run.sending && run.next != null && run.ready.size() < PAGES_AHEAD) {
                run.sending = true;
                due.add(new Pending(run, run.next));
            }
        }
        return due;
    }

    private void send(List<Pending> due) {
        for (Pending pending : due) {
            // resumable: a page answered 503 waits out its backoff off the fetch slot, other reads running meanwhile
            FetchScheduler.Ticket ticket = scheduler.submitResumable(
                    FetchPriority.DEMAND,
                    abort -> fetch(pending.run, pending.request, abort),
                    reason -> failed(pending.run, reason));
            boolean cancel;
            synchronized (lock) {
                cancel = closed;
                pending.run.ticket = ticket;
            }
            if (cancel) {
                ticket.cancel();
            }
        }
    }

    private void fetch(Run run, ListRequest request, FetchAbort abort) {
        ListingCursor.Step step;
        List<Integer> cuts;
        try {
            ListPage answer = sender.send(request, abort);
            step = run.cursor.accept(request, answer); // this is the cursor's one request in flight
            cuts = step.next() == null ? List.of() : run.cursor.plannedCuts(maxCursors - 1);
        } catch (BackOff e) {
            throw e; // the same page is sent again after the wait: the cursor has not moved
        } catch (IOException | RuntimeException e) {
            failed(run, e);
            return;
        }
        step.kept().forEach(learned);
        List<Pending> due;
        synchronized (lock) {
            run.sending = false;
            run.ticket = null;
            if (closed) {
                return;
            }
            split(run, cuts);
            run.next = step.next();
            if (!step.kept().isEmpty()) {
                run.ready.add(step.kept());
            }
            lock.notifyAll();
            due = due();
        }
        send(due);
    }

    /**
     * Gives the targets after the first {@code cuts} that fit in {@code list.cursors} (counted per bucket, as the
     * plan counts them) to new cursors, inserted right after {@code run}. Called with the lock held, on the thread
     * of {@code run}'s request, the only one that touches its cursor; {@code run} is still sending, so the reader
     * has not passed it and the insertion keeps every run it has not read in key order.
     */
    private void split(Run run, List<Integer> cuts) {
        if (cuts.isEmpty()) {
            return;
        }
        String bucket = run.cursor.bucket();
        long inBucket = runs.stream()
                .filter(other -> other.cursor.bucket().equals(bucket))
                .count();
        int room = (int) Math.min(cuts.size(), maxCursors - inBucket);
        if (room <= 0) {
            return;
        }
        List<Run> split = run.cursor.splitAfter(cuts.subList(0, room)).stream()
                .map(Run::new)
                .toList();
        runs.addAll(runs.indexOf(run) + 1, split);
    }

    private void failed(Run run, Throwable reason) {
        synchronized (lock) {
            run.sending = false;
            run.next = null;
            if (failure == null && !closed) {
                String where = "s3://" + run.cursor.bucket() + "/" + run.cursor.prefix();
                failure = reason instanceof IOException io
                        ? io
                        : new IOException("Listing " + where + " failed: " + reason, reason);
            }
            lock.notifyAll();
        }
    }

    /** A cursor and where it stands. Guarded by the listing's lock, apart from the cursor (see the class note). */
    private static final class Run {
        final ListingCursor cursor;
        final Queue<List<ListedObject>> ready = new ArrayDeque<>();
        ListRequest next;
        boolean sending;
        FetchScheduler.Ticket ticket;

        Run(ListingCursor cursor) {
            this.cursor = cursor;
            this.next = cursor.firstRequest();
        }
    }
}
