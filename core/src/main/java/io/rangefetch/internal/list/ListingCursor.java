package io.rangefetch.internal.list;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * One cursor of a listing: the requests that list one group of disjoint, sorted targets under their common
 * prefix, and what of each page falls under them. A pure state machine: {@link #firstRequest()}, then
 * {@link #accept} with each page answered, which gives the keys kept and the next request (known as soon as the
 * page is, so the caller can send it while the keys are being read). No I/O, no threads; not thread-safe.
 *
 * <p><b>Sorted listings</b> (S3 and most servers). The cursor walks its targets in step with the keys: a key
 * below the current target is skipped, one in it is kept (unless it is a folder marker, a key ending in
 * {@code /}), one above it moves on to the next target. After a truncated page, a listing that would go on below
 * the current target restarts instead with {@code StartAfter} just before it ({@link Utf8Order#justBefore}), so
 * the keys between are never listed; one inside it goes on with the continuation token. A key above the last
 * target ends the cursor. Every page is also filtered by the lower bound (the last key seen, or the
 * {@code StartAfter} sent): a server that ignores {@code StartAfter} answers keys at or below it, which are
 * dropped, and once it is caught doing so the cursor never restarts again but pages on with continuation tokens.
 *
 * <p><b>Splitting.</b> A cursor of {@link ListingPlan}'s groups learns from its first page, when that page is
 * truncated and the server was not caught ignoring {@code StartAfter}: {@link #plannedCuts} then answers where
 * {@link SplitPlanner} would cut the targets left, and {@link #splitAfter} keeps the targets up to the first cut
 * and hands the rest, as new cursors, to the caller. The targets it keeps include the one it stands in, so its
 * next request is unchanged; it ends, as any cursor, with a key past its (new) last target. Cursors made by a
 * split do not split again: each initial cursor spends its own budget once (see {@link SplitPlanner}).
 *
 * <p><b>Unsorted listings</b> (S3 Express directory buckets: no {@code StartAfter}, keys in no order, prefixes
 * only up to a {@code /}). The group is one target, listed from the directory that holds it to the end; the keys
 * kept are given, sorted, with the last page. They never split.
 */
final class ListingCursor {
    private final String bucket;
    private List<ListTarget> targets;
    private final String prefix;
    private final int pageSize;
    private final boolean sorted;
    // What the pages so far left: the current target, the lower bound, whether StartAfter is honoured.
    private int current;
    private String lowerBound;
    private boolean startAfterIgnored;
    private final List<ListedObject> unsortedKept = new ArrayList<>();
    // Splitting: the first page's keys while it is read, then what it showed until the cuts are asked for.
    private List<String> firstPageKeys;
    private FirstPage firstPage;

    private ListingCursor(
            String bucket, List<ListTarget> targets, String prefix, int pageSize, boolean sorted, boolean learns) {
        this.bucket = requireNonNull(bucket, "bucket is null");
        this.targets = List.copyOf(targets);
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("A cursor needs a target");
        }
        this.prefix = prefix;
        this.pageSize = pageSize;
        this.sorted = sorted;
        this.firstPageKeys = learns && this.targets.size() > 1 ? new ArrayList<>() : null;
    }

    /**
     * A cursor over a group of disjoint targets in key order, on a server that lists in key order; it learns from
     * its first page where to split if {@code splits} (see the class note).
     */
    static ListingCursor sorted(String bucket, List<ListTarget> group, int pageSize, boolean splits) {
        String prefix = Utf8Order.commonPrefix(
                group.get(0).text(), group.get(group.size() - 1).text());
        return new ListingCursor(bucket, group, prefix, pageSize, true, splits);
    }

    /** A cursor over one target on a server that lists in no order and knows no {@code StartAfter}. */
    static ListingCursor unsorted(String bucket, ListTarget target, int pageSize) {
        String text = target.text();
        return new ListingCursor(
                bucket, List.of(target), text.substring(0, text.lastIndexOf('/') + 1), pageSize, false, false);
    }

    String bucket() {
        return bucket;
    }

    String prefix() {
        return prefix;
    }

    /** What one page gave: the keys kept, in key order, and the request to send next ({@code null}: done). */
    record Step(List<ListedObject> kept, ListRequest next) {}

    ListRequest firstRequest() {
        ListRequest first = ListRequest.of(bucket, prefix, pageSize);
        String start = targets.get(0).text();
        if (!sorted || start.equals(prefix)) {
            return first;
        }
        String before = Utf8Order.justBefore(start);
        lowerBound = before;
        return Utf8Order.compare(before, prefix) >= 0 ? first.withStartAfter(before) : first;
    }

    /** Takes the page answered to {@code request} (the last request this cursor gave). */
    Step accept(ListRequest request, ListPage page) {
        return sorted ? acceptSorted(request, page) : acceptUnsorted(request, page);
    }

    private Step acceptSorted(ListRequest request, ListPage page) {
        List<ListedObject> kept = new ArrayList<>();
        String last = null;
        for (ListedObject entry : page.objects()) {
            String key = entry.location().key();
            if (request.startAfter() != null && Utf8Order.compare(key, request.startAfter()) <= 0) {
                startAfterIgnored = true;
            }
            if (lowerBound != null && Utf8Order.compare(key, lowerBound) <= 0) {
                continue;
            }
            if (firstPageKeys != null) {
                firstPageKeys.add(key);
            }
            lowerBound = key;
            last = key;
            while (current < targets.size() && targets.get(current).position(key) > 0) {
                current++;
            }
            if (current == targets.size()) {
                firstPageKeys = null;
                return new Step(kept, null); // past every target: nothing more of this cursor's can follow
            }
            if (targets.get(current).position(key) == 0 && !key.endsWith("/")) {
                kept.add(entry);
            }
        }
        List<String> sample = firstPageKeys;
        firstPageKeys = null;
        if (!page.truncated()) {
            return new Step(kept, null);
        }
        if (sample != null && !startAfterIgnored) {
            firstPage = FirstPage.observe(targets, sample);
        }
        ListRequest continued = request.withContinuationToken(page.nextContinuationToken());
        if (last == null || targets.get(current).position(last) == 0 || startAfterIgnored) {
            return new Step(kept, continued);
        }
        String before = Utf8Order.justBefore(targets.get(current).text());
        if (Utf8Order.compare(before, last) <= 0 || Utf8Order.compare(before, prefix) < 0) {
            return new Step(kept, continued);
        }
        lowerBound = lowerBound == null || Utf8Order.compare(before, lowerBound) > 0 ? before : lowerBound;
        return new Step(kept, request.withStartAfter(before));
    }

    /**
     * Where to cut the targets this cursor has left, best first, at most {@code most} (see {@link SplitPlanner}):
     * answered once, after a first page that taught something, and empty otherwise.
     */
    List<Integer> plannedCuts(int most) {
        FirstPage seen = firstPage;
        firstPage = null;
        return seen == null ? List.of() : SplitPlanner.cuts(targets, seen, pageSize, most);
    }

    /**
     * Keeps the targets up to the first of {@code cuts} (indexes of {@link #plannedCuts}, in any order) and
     * answers new cursors, in key order, for the targets after each cut.
     */
    List<ListingCursor> splitAfter(List<Integer> cuts) {
        List<Integer> sorted = new ArrayList<>(cuts);
        sorted.sort(null);
        if (!sorted.isEmpty() && (sorted.get(0) < current || sorted.get(sorted.size() - 1) >= targets.size() - 1)) {
            throw new IllegalArgumentException(
                    "Cuts " + cuts + " outside targets " + current + ".." + (targets.size() - 1));
        }
        List<List<ListTarget>> groups = ListingPlan.cutAfter(targets, sorted);
        targets = groups.get(0);
        List<ListingCursor> split = new ArrayList<>();
        for (List<ListTarget> group : groups.subList(1, groups.size())) {
            split.add(sorted(bucket, group, pageSize, false));
        }
        return split;
    }

    private Step acceptUnsorted(ListRequest request, ListPage page) {
        ListTarget target = targets.get(0);
        for (ListedObject entry : page.objects()) {
            if (target.position(entry.location().key()) == 0
                    && !entry.location().key().endsWith("/")) {
                unsortedKept.add(entry);
            }
        }
        if (page.truncated()) {
            return new Step(List.of(), request.withContinuationToken(page.nextContinuationToken()));
        }
        List<ListedObject> all = new ArrayList<>(unsortedKept);
        all.sort((left, right) ->
                Utf8Order.compare(left.location().key(), right.location().key()));
        unsortedKept.clear();
        // a server that lists one key twice across pages must not make the result say it twice
        List<ListedObject> distinct = new ArrayList<>(all.size());
        for (ListedObject entry : all) {
            if (distinct.isEmpty()
                    || !distinct.get(distinct.size() - 1)
                            .location()
                            .key()
                            .equals(entry.location().key())) {
                distinct.add(entry);
            }
        }
        return new Step(distinct, null);
    }
}
