package io.rangefetch.internal.list;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Turns wanted keys into the groups of targets that cursors list: pure functions, no I/O.
 *
 * <p><b>Targets.</b> A location ending in {@code /} names every key under it; any other names its own key and
 * every key under it as a directory ({@code t/p=1} names {@code t/p=1} and {@code t/p=1/...}, but not
 * {@code t/p=1-x/...}, which sorts between them). Targets are sorted in UTF-8 binary order, and those another
 * covers (duplicates, {@code t/p=1/x/} under {@code t/p=1/}) are dropped, which leaves disjoint intervals in key
 * order: so the cursors' results, concatenated, are in key order with no duplicate.
 *
 * <p><b>Groups, before any I/O.</b> A cursor lists from just before its first target to its last, restarting
 * with {@code StartAfter} over gaps. A cut between two groups costs one more call unless the gap it sits in holds
 * a page of keys or more (the cursor before the cut must read a page past its last target to know it ended: S3
 * has no "end before"; a single cursor would have restarted in such a gap anyway). Before the first page nothing
 * is known of the keys, so the names decide ({@link #gapUnits}): neighbours whose names differ first in a number
 * by at least a page size ({@code p=0099} and {@code p=2300} with 1,000-key pages) are cut, as each number
 * between is likely a directory of a key or more; neighbours differing in a smaller number are not, and are left
 * to the cursor's first page ({@link SplitPlanner}); neighbours whose difference is no number ({@code t/a/} and
 * {@code t/k/}) are cut as long as every such cut fits in the cursors, else none is (the first pages decide,
 * rather than shares cut blindly). A run of consecutive targets is never cut here, so listing every partition
 * costs what paging through their common prefix costs. The cuts decide only how many calls and how much
 * parallelism a listing takes, never what it returns.
 */
final class ListingPlan {
    private static final Comparator<ListTarget> TARGET_ORDER = Comparator.comparing(ListTarget::text, Utf8Order.ORDER)
            .thenComparing(target -> !target.prefix()); // a prefix before the exact key it covers

    private ListingPlan() {}

    /** The targets one location's key names. */
    static List<ListTarget> targetsOf(String key) {
        return key.endsWith("/")
                ? List.of(ListTarget.under(key))
                : List.of(ListTarget.exactly(key), ListTarget.under(key + "/"));
    }

    /** The targets in key order, those another covers dropped. */
    static List<ListTarget> disjoint(Collection<ListTarget> targets) {
        List<ListTarget> sorted = new ArrayList<>(targets);
        sorted.sort(TARGET_ORDER);
        List<ListTarget> kept = new ArrayList<>();
        for (ListTarget target : sorted) {
            // sorted, a target is covered by some kept one exactly when it is covered by the last kept one
            if (kept.isEmpty() || !kept.get(kept.size() - 1).covers(target)) {
                kept.add(target);
            }
        }
        return kept;
    }

    /**
     * Splits disjoint, sorted targets into at most {@code cursors} groups before any I/O, as the class note says;
     * {@code pageSize} is the keys a listing asks for a page.
     */
    static List<List<ListTarget>> groups(List<ListTarget> targets, int cursors, int pageSize) {
        if (cursors < 1 || pageSize < 1) {
            throw new IllegalArgumentException(
                    "cursors and pageSize must be positive, got " + cursors + " and " + pageSize);
        }
        List<Integer> wide = new ArrayList<>(); // gaps after these targets likely hold a page or more
        List<Integer> opaque = new ArrayList<>();
        long[] units = new long[Math.max(0, targets.size() - 1)];
        for (int i = 0; i + 1 < targets.size(); i++) {
            units[i] = gapUnits(targets.get(i).text(), targets.get(i + 1).text());
            if (units[i] >= Math.max(1, pageSize - 1)) {
                wide.add(i);
            } else if (units[i] == OPAQUE) {
                opaque.add(i);
            }
        }
        wide.sort(Comparator.comparingLong((Integer i) -> -units[i]).thenComparing(i -> i));
        List<Integer> cuts = new ArrayList<>(wide.subList(0, Math.min(wide.size(), cursors - 1)));
        if (cuts.size() + opaque.size() <= cursors - 1) {
            cuts.addAll(opaque);
        }
        return cutAfter(targets, cuts);
    }

    /** {@code targets} cut after each of the indexes {@code cuts} (any order, each below the last index). */
    static List<List<ListTarget>> cutAfter(List<ListTarget> targets, Collection<Integer> cuts) {
        List<Integer> sorted = new ArrayList<>(cuts);
        sorted.sort(null);
        List<List<ListTarget>> groups = new ArrayList<>();
        int from = 0;
        for (int cut : sorted) {
            groups.add(List.copyOf(targets.subList(from, cut + 1)));
            from = cut + 1;
        }
        if (from < targets.size()) {
            groups.add(List.copyOf(targets.subList(from, targets.size())));
        }
        return groups;
    }

    /** What {@link #gapUnits} answers when the names differ in no number. */
    static final long OPAQUE = -1;

    /**
     * How many numbers lie between two neighbouring targets' names, each likely a directory of its own: where the
     * names first differ both hold digits, the difference of the two numbers there, less one ({@code p=0099/} and
     * {@code p=0120/}: 20). Zero for neighbours between which nothing is likely to lie: numbers that go up by one
     * (or down: unpadded numbers sort {@code p=19/} before {@code p=2/}), a character followed by the next one,
     * and a name followed by one it starts ({@code t/p=1} and {@code t/p=1/}, whose interval lies right after
     * it). {@link #OPAQUE} when the names differ otherwise ({@code t/a/} and {@code t/k/}, or numbers of more than
     * 18 digits).
     */
    static long gapUnits(String lower, String upper) {
        int at = Utf8Order.commonPrefix(lower, upper).length();
        if (at >= lower.length() || at >= upper.length()) {
            return 0;
        }
        if (isDigit(lower.charAt(at)) && isDigit(upper.charAt(at))) {
            int start = at;
            while (start > 0 && isDigit(lower.charAt(start - 1))) {
                start--;
            }
            String low = digits(lower, start);
            String high = digits(upper, start);
            if (low.length() <= 18 && high.length() <= 18) {
                return Math.max(0, Long.parseLong(high) - Long.parseLong(low) - 1);
            }
            return OPAQUE;
        }
        return upper.codePointAt(at) - lower.codePointAt(at) <= 1 ? 0 : OPAQUE;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static String digits(String text, int start) {
        int end = start;
        while (end < text.length() && isDigit(text.charAt(end))) {
            end++;
        }
        return text.substring(start, end);
    }
}
