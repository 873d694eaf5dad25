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
 * <p><b>Groups.</b> A cursor lists from just before its first target to its last, restarting with
 * {@code StartAfter} over gaps. A new cursor costs at least one LIST call, and a cut inside a run of keys costs
 * one more (the cursor before the cut must read a page past its last target to know it ended: S3 has no
 * "end before"), so groups are cut only where a gap is likely: between neighbours that are not consecutive
 * ({@code p=0099} and {@code p=2390}, but not {@code p=0099} and {@code p=0100}: numbers are compared as numbers,
 * other characters by code point). A run of consecutive targets stays one cursor however long, so listing every
 * partition costs what paging through their common prefix costs. When the cuts make more groups than cursors,
 * neighbouring groups are merged into equal shares. The cuts decide only how many calls and how much parallelism
 * a listing takes, never what it returns.
 */
final class ListingPlan {
    private static final Comparator<ListTarget> TARGET_ORDER = Comparator
            .comparing(ListTarget::text, Utf8Order.ORDER)
            .thenComparing(target -> !target.prefix()); // a prefix before the exact key it covers

    private ListingPlan() {}

    /** The targets one location's key names. */
    static List<ListTarget> targetsOf(String key) {
        return key.endsWith("/") ? List.of(ListTarget.under(key))
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

    /** Splits disjoint, sorted targets into at most {@code cursors} groups, as the class note says. */
    static List<List<ListTarget>> groups(List<ListTarget> targets, int cursors) {
        if (cursors < 1) {
            throw new IllegalArgumentException("cursors must be positive, got " + cursors);
        }
        List<List<ListTarget>> runs = new ArrayList<>();
        int from = 0;
        for (int i = 1; i <= targets.size(); i++) {
            if (i == targets.size() || !consecutive(targets.get(i - 1).text(), targets.get(i).text())) {
                runs.add(List.copyOf(targets.subList(from, i)));
                from = i;
            }
        }
        if (runs.size() <= cursors) {
            return runs;
        }
        List<List<ListTarget>> merged = new ArrayList<>();
        int share = (targets.size() + cursors - 1) / cursors;
        List<ListTarget> current = new ArrayList<>();
        for (List<ListTarget> run : runs) {
            if (!current.isEmpty() && current.size() + run.size() > share && merged.size() < cursors - 1) {
                merged.add(current);
                current = new ArrayList<>();
            }
            current.addAll(run);
        }
        merged.add(current);
        return merged;
    }

    /**
     * Whether nothing is likely to lie between two neighbouring targets: their names differ first in a number
     * that goes up by one, or in a character followed by the next one ({@code t/p=1} and {@code t/p=1/}, whose
     * interval lies right after it, count as consecutive too).
     */
    static boolean consecutive(String lower, String upper) {
        int at = Utf8Order.commonPrefix(lower, upper).length();
        if (at >= lower.length() || at >= upper.length()) {
            return true;
        }
        if (isDigit(lower.charAt(at)) && isDigit(upper.charAt(at))) {
            int start = at;
            while (start > 0 && isDigit(lower.charAt(start - 1))) {
                start--;
            }
            String low = digits(lower, start);
            String high = digits(upper, start);
            if (low.length() <= 18 && high.length() <= 18) {
                return Long.parseLong(high) - Long.parseLong(low) <= 1;
            }
            return false;
        }
        return upper.codePointAt(at) - lower.codePointAt(at) <= 1;
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
