package io.rangefetch.internal.list;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides, once a cursor's first page has shown how dense its region is ({@link FirstPage}), where to cut the
 * targets it has left so that more cursors list them in parallel: pure functions, no I/O.
 *
 * <p><b>The model.</b> Every remaining target and gap gets an estimated number of keys (a directory as many as
 * the directories passed held on average, a gap as many as the numbers it skips times the keys per number seen,
 * see {@link FirstPage}), which lays them out on a line of key positions starting where the cursor goes on. A
 * cursor over a group of targets is simulated as {@link ListingCursor} lists: a page advances a page size; a
 * page that ends in a gap restarts at the next target; the cursor ends with the page that reaches past its last
 * target. Three counts come of it for the remaining targets: {@code single}, the pages of the cursor as it is;
 * {@code region}, the pages of paging through the region without a restart (what paging through the common
 * prefix spends on it, at the least); {@code perTarget}, one listing per target (a call each, more for a
 * directory of more than a page).
 *
 * <p><b>Cuts.</b> A cut in a gap of a page or more is free: a single cursor reaches that gap and restarts after it
 * anyway, which is where the cursor after the cut starts. Any other cut costs at most one call (the cursor after
 * it starts a page earlier than the single cursor would have been), so paid cuts are made while
 * {@code single + paid <= min(region, perTarget)}: the listing stays within the better of the two baselines
 * (single never exceeds either, so the budget is never negative). Cuts are chosen one at a time, each in the
 * group with the most estimated pages (at least two pages for a paid cut: splitting one page gains no time),
 * a free one first: the free gap nearest the group's middle page, or for a paid one the gap where the group's
 * middle page ends (where the single cursor restarts there, the cut likely costs nothing), else the boundary of
 * the target that page ends in. The answer is that order, so its first {@code n} cuts are the plan for {@code n}
 * more cursors, whatever room the listing turns out to have.
 *
 * <p>Estimates are only estimates: the cuts decide how many calls and how much parallelism a listing takes, never
 * what it returns.
 */
final class SplitPlanner {
    private final List<ListTarget> targets;
    private final int first;
    private final int last;
    private final double page;
    // Estimated key positions of targets first..last (index i - first), 0 being where the cursor goes on.
    private final double[] start;
    private final double[] end;

    private SplitPlanner(List<ListTarget> targets, FirstPage seen, int pageSize) {
        this.targets = targets;
        this.first = seen.current();
        this.last = targets.size() - 1;
        this.page = pageSize;
        int count = last - first + 1;
        this.start = new double[count];
        this.end = new double[count];
        double at = 0;
        for (int i = first; i <= last; i++) {
            if (i > first) {
                long units = ListingPlan.gapUnits(
                        targets.get(i - 1).text(), targets.get(i).text());
                at += units == ListingPlan.OPAQUE ? seen.keysPerOpaqueGap() : units * seen.keysPerGapUnit();
            }
            start[i - first] = at;
            double size = targets.get(i).prefix() ? seen.keysPerTarget() : 1;
            if (i == first && seen.inTarget()) {
                size = Math.max(0, size - seen.keysInCurrent());
            }
            at += size;
            end[i - first] = at;
        }
    }

    /**
     * The cuts for the targets a cursor has left after its first page, best first, at most {@code most}: each an
     * index {@code i} of {@code targets} (the cursor's, whose first {@code seen.current()} are behind it) after
     * which a new cursor starts.
     */
    static List<Integer> cuts(List<ListTarget> targets, FirstPage seen, int pageSize, int most) {
        if (most < 1 || pageSize < 1 || seen.current() >= targets.size() - 1) {
            return List.of();
        }
        return new SplitPlanner(targets, seen, pageSize).plan(most);
    }

    /** A run of targets one cursor would list, its simulated pages, and its best free cut (-1: none). */
    private record Group(int from, int to, Pages pages, int freeCut) {}

    private List<Integer> plan(int most) {
        Group whole = group(first, last);
        long budget = Math.max(0, Math.min(regionPages(), perTargetCalls()) - whole.pages.count());
        List<Group> groups = new ArrayList<>(List.of(whole));
        List<Integer> cuts = new ArrayList<>();
        while (cuts.size() < most) {
            Group chosen = null;
            int chosenCut = -1;
            for (Group group : groups) {
                int free = group.freeCut;
                boolean payable = budget > 0 && group.pages.count() >= 2 && group.to > group.from;
                if (free < 0 && !payable) {
                    continue;
                }
                long pages = group.pages.count();
                if (chosen == null
                        || pages > chosen.pages.count()
                        || pages == chosen.pages.count() && free >= 0 && chosenCut < 0) {
                    chosen = group;
                    chosenCut = free;
                }
            }
            if (chosen == null) {
                break;
            }
            if (chosenCut < 0) {
                chosenCut = paidCut(chosen);
                budget--;
            }
            cuts.add(chosenCut);
            int at = groups.indexOf(chosen);
            groups.set(at, group(chosen.from, chosenCut));
            groups.add(at + 1, group(chosenCut + 1, chosen.to));
        }
        return cuts;
    }

    /** The free gap (a page or more) in targets {@code from..to} nearest {@code middle}, or -1. */
    private int freeCut(int from, int to, double middle) {
        int best = -1;
        double bestDistance = Double.MAX_VALUE;
        for (int i = from; i < to; i++) {
            double gapStart = end(i);
            double gapEnd = start(i + 1);
            if (gapEnd - gapStart < page) {
                continue;
            }
            double distance = middle < gapStart ? gapStart - middle : Math.max(0, middle - gapEnd);
            if (distance < bestDistance) {
                best = i;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Where the middle page of targets {@code from..to} ends (or their middle, if they take one page). */
    private double middle(int from, int to, Pages pages) {
        long count = pages.count();
        return count >= 2 ? pages.end(count / 2) : (start(from) + end(to)) / 2;
    }

    /** The cut for more parallelism in {@code group} (of two pages or more): at its middle page's end. */
    private int paidCut(Group group) {
        double middle = middle(group.from, group.to, group.pages);
        int target = targetAt(middle, group.from, group.to);
        if (middle > end(target) && target < group.to) {
            return target; // the page ends in the gap after it: the single cursor restarts right there
        }
        return target > group.from ? target - 1 : target;
    }

    /** Simulates one cursor over targets {@code from..to}, as the class note says. */
    private Group group(int from, int to) {
        Pages pages = new Pages(page);
        double position = start(from);
        while (true) {
            int target = targetAt(position, from, to);
            // the pages that end inside this target, short of its end, in one go: a directory may span many
            double whole = Math.ceil((end(target) - position) / page) - 1;
            if (whole > 0) {
                pages.add(position + page, (long) whole);
                position += whole * page;
            }
            position += page;
            pages.add(position, 1);
            if (position >= end(to)) {
                return new Group(from, to, pages, freeCut(from, to, middle(from, to, pages)));
            }
            int reached = targetAt(position, from, to);
            if (position > end(reached) && reached < to) {
                position = start(reached + 1);
            }
        }
    }

    /** The last of targets {@code from..to} that starts at or before {@code position} ({@code from} if none). */
    private int targetAt(double position, int from, int to) {
        int low = from;
        int high = to;
        while (low < high) {
            int middle = (low + high + 1) >>> 1;
            if (start(middle) <= position) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return low;
    }

    private long regionPages() {
        return Math.max(1, (long) Math.ceil((end(last) - start(first)) / page));
    }

    private long perTargetCalls() {
        long calls = 0;
        for (int i = first; i <= last; i++) {
            ListTarget target = targets.get(i);
            if (target.prefix()) {
                calls += Math.max(1, (long) Math.ceil((end(i) - start(i)) / page));
            } else if (i == last || !targets.get(i + 1).text().equals(target.text() + "/")) {
                calls++; // a key and the directory of its name are one location: one listing
            }
        }
        return calls;
    }

    private double start(int target) {
        return start[target - first];
    }

    private double end(int target) {
        return end[target - first];
    }

    /** A simulated cursor's pages: how many, and where each ends, kept as runs of evenly spaced ends. */
    private static final class Pages {
        private final double size;
        private final List<double[]> runs = new ArrayList<>(); // {first end, pages}
        private long count;

        Pages(double size) {
            this.size = size;
        }

        void add(double firstEnd, long pages) {
            runs.add(new double[] {firstEnd, pages});
            count += pages;
        }

        long count() {
            return count;
        }

        /** Where page {@code number} (from 1) ends. */
        double end(long number) {
            long before = 0;
            for (double[] run : runs) {
                long pages = (long) run[1];
                if (number <= before + pages) {
                    return run[0] + (number - before - 1) * size;
                }
                before += pages;
            }
            throw new IllegalArgumentException("No page " + number + " of " + count);
        }
    }
}
