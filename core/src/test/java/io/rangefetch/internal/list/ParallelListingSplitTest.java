package io.rangefetch.internal.list;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Splits racing the reader, the interleavings decided by holding LIST requests in the page sender: a cursor
 * splits while the reader waits on an earlier one; the new cursors' pages arrive before the split cursor's own
 * next page, and the reader still reads the split cursor's first; closing the listing while new cursors' pages
 * are held sends nothing more.
 *
 * <p>The bucket: partitions {@code t/p=0000/} to {@code t/p=1999/} of ten keys; pages of 100 keys. Wanted:
 * {@code p=0000..0004} (a cursor of one page: what {@code t/p=000} holds) and every third partition from
 * {@code p=1000} to {@code p=1600}, a cursor that its first page (about ten partitions) splits: by the cut at its
 * middle, near {@code p=1300}, its new cursors start past {@code t/p=11}, where it cannot have paged on its own.
 */
class ParallelListingSplitTest {
    private static final String BUCKET = "bucket";
    private static final String FIRST_CURSOR_PREFIX = "t/p=000";
    private static final String SPLIT_CURSOR_FIRST_START = "t/p=1000.";
    private static final String BEYOND_THE_SPLIT_CURSORS_PAGES = "t/p=11";
    private static final ListingSettings SETTINGS = new ListingSettings(100, 16, 8, Duration.ZERO);

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final TreeSet<String> stored = new TreeSet<>(Utf8Order.ORDER);
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private final ManualTime time = new ManualTime();
    private final FetchScheduler scheduler = new FetchScheduler(16, threads, threads, time.timeSource());
    private final ExecutorService reader = Executors.newSingleThreadExecutor();
    private final List<String> wanted = new ArrayList<>();
    private final List<ListRequest> sent = new CopyOnWriteArrayList<>();
    // the last key of each page answered with a continuation token: where a request with that token goes on
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final CountDownLatch newCursorAnswered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch heldReached = new CountDownLatch(1);
    private final Semaphore heldCount = new Semaphore(0);
    private volatile Predicate<ListRequest> held = request -> false;

    ParallelListingSplitTest() {
        for (int p = 0; p < 2000; p++) {
            for (int f = 0; f < 10; f++) {
                String key = String.format("t/p=%04d/f%d", p, f);
                client.put(BUCKET, key, new byte[1]);
                stored.add(key);
            }
        }
        for (int p = 0; p < 5; p++) {
            wanted.add(String.format("t/p=%04d/", p));
        }
        for (int p = 1000; p <= 1600; p += 3) {
            wanted.add(String.format("t/p=%04d/", p));
        }
    }

    @AfterEach
    void stop() {
        release.countDown();
        reader.shutdownNow();
        scheduler.close(); // waits for running pages, then shuts its threads down
    }

    private ParallelListing start() {
        return ParallelListing.start(
                Map.of(BUCKET, wanted),
                SETTINGS,
                scheduler,
                time.timeSource(),
                (request, abort) -> {
                    sent.add(request);
                    if (held.test(request)) {
                        heldReached.countDown();
                        heldCount.release();
                        try {
                            release.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    ListPage page = client.list(request);
                    if (page.truncated()) {
                        tokens.put(
                                page.nextContinuationToken(),
                                page.objects()
                                        .get(page.objects().size() - 1)
                                        .location()
                                        .key());
                    }
                    if (ofANewCursor(request)) {
                        newCursorAnswered.countDown();
                    }
                    return page;
                },
                entry -> {});
    }

    /** Where a request lists from: after its StartAfter, or after the last key of the page its token follows. */
    private String from(ListRequest request) {
        String from =
                request.continuationToken() != null ? tokens.get(request.continuationToken()) : request.startAfter();
        return from == null ? "" : from;
    }

    /** A request of a cursor the split made: they list from past where the split cursor can have paged. */
    private boolean ofANewCursor(ListRequest request) {
        return Utf8Order.compare(from(request), BEYOND_THE_SPLIT_CURSORS_PAGES) > 0;
    }

    private boolean ofTheSplitCursorAfterItsFirst(ListRequest request) {
        return !request.prefix().equals(FIRST_CURSOR_PREFIX)
                && !ofANewCursor(request)
                && !(request.continuationToken() == null && SPLIT_CURSOR_FIRST_START.equals(request.startAfter()));
    }

    private void awaitHeld() throws InterruptedException {
        assertThat(heldReached.await(10, TimeUnit.SECONDS))
                .as("the held request was sent")
                .isTrue();
    }

    private List<String> expected() {
        List<String> keys = new ArrayList<>();
        for (String directory : wanted) {
            keys.addAll(stored.subSet(directory, true, directory + Character.MAX_VALUE, false));
        }
        return keys;
    }

    private static List<String> readAll(ParallelListing listing) throws IOException {
        List<String> keys = new ArrayList<>();
        for (ListedObject listed = listing.next(); listed != null; listed = listing.next()) {
            keys.add(listed.location().key());
        }
        return keys;
    }

    @Test
    void aCursorSplitsAndItsNewCursorsPageWhileTheReaderWaitsOnAnEarlierCursor() throws Exception {
        held = request -> request.prefix().equals(FIRST_CURSOR_PREFIX);
        try (ParallelListing listing = start()) {
            assertThat(listing.cursorCount()).isEqualTo(2);
            Future<List<String>> read = reader.submit(() -> readAll(listing));
            awaitHeld();

            assertThat(newCursorAnswered.await(10, TimeUnit.SECONDS))
                    .as("a new cursor's page came")
                    .isTrue();
            assertThat(read).isNotDone();
            assertThat(listing.cursorCount()).isGreaterThan(2);

            release.countDown();
            assertThat(read.get(10, TimeUnit.SECONDS)).containsExactlyElementsOf(expected());
        }
    }

    @Test
    void theSplitCursorIsReadBeforeTheNewCursorsThoughTheirPagesCameFirst() throws Exception {
        held = this::ofTheSplitCursorAfterItsFirst;
        try (ParallelListing listing = start()) {
            Future<List<String>> read = reader.submit(() -> readAll(listing));
            awaitHeld();

            assertThat(newCursorAnswered.await(10, TimeUnit.SECONDS))
                    .as("a new cursor's page came")
                    .isTrue();
            assertThat(read).isNotDone();

            release.countDown();
            assertThat(read.get(10, TimeUnit.SECONDS)).containsExactlyElementsOf(expected());
        }
    }

    @Test
    void closingWhileEveryPageAfterTheSplitIsHeldSendsNothingMore() throws Exception {
        held = request -> !request.prefix().equals(FIRST_CURSOR_PREFIX)
                && !(request.continuationToken() == null && SPLIT_CURSOR_FIRST_START.equals(request.startAfter()));
        ParallelListing listing = start();
        awaitHeld(); // the split is made before the split cursor's next page is due: the cursors are all there
        int cursors = listing.cursorCount();
        assertThat(cursors).isGreaterThan(2);
        // in flight: the split cursor's next page and the first page of each new cursor in the window
        int inFlight = 1 + Math.min(cursors, SETTINGS.parallelism()) - 2;
        assertThat(heldCount.tryAcquire(inFlight, 10, TimeUnit.SECONDS))
                .as("every page due was sent")
                .isTrue();

        listing.close();
        int atClose = sent.size();
        release.countDown();
        scheduler.close(); // waits for the held pages to end

        assertThat(sent).hasSize(atClose);
        assertThatThrownBy(listing::next).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }
}
