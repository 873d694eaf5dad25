package io.rangefetch.internal.list;

import java.util.List;

/**
 * What a cursor's first page showed of the keys around its targets, for {@link SplitPlanner} to estimate the rest
 * of the cursor's region by: the keys in the wanted directories and in the gaps between them, counting only the
 * targets and gaps the page passed whole (the last one it reached is cut short), and where it stopped. A gap is
 * measured in the numbers its neighbours' names skip ({@link ListingPlan#gapUnits}); a gap whose neighbours
 * differ in no number is counted apart, as a whole. Exact-key targets hold at most one key and say nothing of
 * the directories' sizes, so they are left out of the densities. Folder markers count: they take places in pages.
 *
 * @param current the index of the target the page stopped in or below
 * @param inTarget whether the page's last key lies in that target (else in the gap before it)
 * @param keysInCurrent the page's keys in that target or gap
 * @param targetKeys keys in the directory targets passed whole
 * @param targets the directory targets passed whole
 * @param gapKeys keys in the numbered gaps passed whole
 * @param gapUnits the numbers skipped by those gaps
 * @param opaqueKeys keys in the gaps passed whole whose neighbours differ in no number
 * @param opaqueGaps how many of those
 */
record FirstPage(
        int current,
        boolean inTarget,
        long keysInCurrent,
        long targetKeys,
        int targets,
        long gapKeys,
        long gapUnits,
        long opaqueKeys,
        int opaqueGaps) {

    /**
     * Walks {@code keys} (a page's keys above the cursor's lower bound, in key order) along {@code targets} (the
     * cursor's, sorted and disjoint); {@code null} if the page went past the last target or did not reach the
     * first (nothing to learn from).
     */
    static FirstPage observe(List<ListTarget> targets, List<String> keys) {
        Walk walk = new Walk(targets);
        for (String key : keys) {
            if (!walk.take(key)) {
                return null;
            }
        }
        return walk.element == Walk.BEFORE_FIRST ? null : walk.result();
    }

    /** Keys in one wanted directory: the average of those passed, or a bound from the one the page stopped in. */
    double keysPerTarget() {
        if (targets > 0) {
            return (double) targetKeys / targets;
        }
        return inTarget ? keysInCurrent : 1; // stopped inside the first directory: it holds at least this many
    }

    /** Keys per number a numbered gap skips; by default, as many as a wanted directory holds. */
    double keysPerGapUnit() {
        return gapUnits > 0 ? (double) gapKeys / gapUnits : keysPerTarget();
    }

    /** Keys in a gap whose neighbours differ in no number; by default, one directory's worth. */
    double keysPerOpaqueGap() {
        return opaqueGaps > 0 ? (double) opaqueKeys / opaqueGaps : keysPerTarget();
    }

    /**
     * The page walked element by element: element {@code 2i} is target {@code i}, {@code 2i - 1} the gap between
     * targets {@code i - 1} and {@code i}, {@code -1} what lies before the first target (never whole).
     */
    private static final class Walk {
        static final int BEFORE_FIRST = -1;

        final List<ListTarget> targets;
        int current;
        int element = BEFORE_FIRST;
        long inElement;
        long targetKeys;
        int targetCount;
        long gapKeys;
        long gapUnits;
        long opaqueKeys;
        int opaqueGaps;

        Walk(List<ListTarget> targets) {
            this.targets = targets;
        }

        /** Counts {@code key}; false if it lies past the last target. */
        boolean take(String key) {
            while (current < targets.size() && targets.get(current).position(key) > 0) {
                current++;
            }
            if (current == targets.size()) {
                return false;
            }
            int at = targets.get(current).position(key) == 0 ? 2 * current : 2 * current - 1;
            while (element < at) {
                passed(element, inElement);
                element++;
                inElement = 0;
            }
            inElement++;
            return true;
        }

        private void passed(int passed, long keys) {
            if (passed == BEFORE_FIRST) {
                return;
            }
            if (passed % 2 == 0) {
                if (targets.get(passed / 2).prefix()) {
                    targetKeys += keys;
                    targetCount++;
                }
                return;
            }
            int upper = (passed + 1) / 2;
            long units = ListingPlan.gapUnits(
                    targets.get(upper - 1).text(), targets.get(upper).text());
            if (units == ListingPlan.OPAQUE) {
                opaqueKeys += keys;
                opaqueGaps++;
            } else if (units > 0) { // what lies between consecutive names is no measure of a number's keys
                gapKeys += keys;
                gapUnits += units;
            }
        }

        FirstPage result() {
            return new FirstPage(
                    current,
                    element % 2 == 0,
                    inElement,
                    targetKeys,
                    targetCount,
                    gapKeys,
                    gapUnits,
                    opaqueKeys,
                    opaqueGaps);
        }
    }
}
