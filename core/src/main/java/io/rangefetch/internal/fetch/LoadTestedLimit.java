package io.rangefetch.internal.fetch;

import com.netflix.concurrency.limits.limit.AbstractLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A concurrency limit that slows down for load and not for noise: AIMD counted in rounds, as TCP counts its window,
 * where a decrease is a test of whether the 503s track the load.
 *
 * <p><b>Rounds.</b> The limit grows by the step once as many answers as the limit came back without a 503, and only
 * while the requests use at least half of it. A 503 to a request sent before the last decrease belongs to the burst
 * that caused that decrease and is not counted again. A decrease starts from what was in flight beside the 503's
 * request, not from a limit nobody used: a limit of 16 with 8 requests in flight drops to 4, not to 8. While
 * trials run, a 503 or two that came without a burst (fewer than a quarter of the window) cut by only
 * {@value #SHALLOW_CUT} at first: a load just above the server's rate needs no more to fall below it, and noise
 * then costs its trial a quarter of the requests, not half (a sequential scan needs its requests in flight); a
 * step that still sees two or more 503s cuts by the factor. A lone 503
 * among a fresh governor's first {@value #WINDOW} answers lowers nothing (S3's rate limit answers a burst, and a
 * short read's few requests, halved, cost it more than the 503): the second does. Once a trial
 * found load, the lowest level where its 503s still came is the <em>ceiling</em>: the limit grows back to below it a
 * step a round, and to it and past it only a step every {@value #PROBE_ROUNDS} rounds, so that a governor near the
 * server's rate probes it seldom (TCP CUBIC's plateau, in the simplest form). Each time a trial finds load again at
 * the same level, the rounds before the next probe double, up to {@value #MAX_PROBE_ROUNDS} (as TCP backs off its
 * probes): against a steady request-rate limit the 503s of probing thin out over time. The ceiling is forgotten
 * once passed.
 *
 * <p><b>The test.</b> S3 throttles a prefix above a request rate: sending less makes its 503s stop. A server that
 * answers a share of all requests 503 whatever their rate (a sick node, a proxy, a noisy neighbour) is not helped
 * by sending less: cutting the limit there only serializes the reads. So a decrease opens a <em>trial</em>: the
 * next {@value #TRIAL_ANSWERS} answers to requests sent after it. The 503s were load if their share fell clearly
 * (two standard errors of the difference) below the share of 503s before this step: among the recent answers
 * (however few: the test weighs a share by the answers it rests on), or in the rest of the round the first 503
 * came in (the answers to requests sent with it, once there are {@value #MIN_TAIL_ANSWERS}; the 503 itself not
 * counted, for the trial opened because it came), whichever is higher, so that the burst of a first round at the
 * start counts. A step whose 8 answers saw no 503, or one
 * (and no burst opened the trial), is too short to tell: noise at one answer in ten shows none in 8 almost every
 * other time, and the tail of a load just cut shows one. It waits for more answers, up to {@value
 * #MAX_TRIAL_ANSWERS}: load if none came by then or their share is clearly below; a second 503 after the first 8
 * answers is a share too low for a load still above the server's rate. If two or more came in the first 8, the
 * limit is lowered once more, {@value #TRIAL_DEPTH} decreases in all (a load far above the server's rate needs
 * several halvings to fall below it), and so it is after one 503 when a burst opened the trial. If the share did
 * not fall by then, the 503s are noise, unless the trial's answers taken together are clearly below the share
 * where it began (load, whose last few 503s come from a level just above the server's rate; the limit stays): the
 * limit goes back to where the trial found it, and the share at the lowest load becomes the <em>noise floor</em>.
 * A trial still sees no 503 of rare noise now and then and takes it for load; so 503s that come later at a load
 * no higher than where a trial found them stopped, about as often as before that trial (counting its answers),
 * prove them noise after all: the average share of 503s becomes the floor, and the limit goes back to where that
 * trial found it. Far fewer than before say that level is just above the server's rate: the limit is lowered as
 * for any load. A level where the share of 503s fell but did not reach zero is not such a level.
 *
 * <p><b>Above the floor.</b> Once noise is known, a 503 lowers the limit (and opens a trial) only when the 503s stand
 * clearly above the floor: among the last {@value #WINDOW} answers (four standard deviations), or in the share of all
 * answers (an average over about the last {@value #SHARE_MEMORY}; three standard deviations of it). Retries, not the
 * governor, answer the noise. The floor is never above that average, so noise that went away is forgotten (and at
 * zero, any 503 lowers the limit again, as plain AIMD does); a floor measured too high is corrected by the next trial
 * the average opens.
 *
 * <p>Chosen over a rate governor (EMRFS's AIMD on requests per second) because the scheduler, the budget and the
 * governor already speak in requests in flight, and a rate decreased on random 503s serializes reads just the same:
 * telling noise from load is what matters, and it is the same test on either quantity.
 *
 * <p>The library's {@code AbstractLimit.onSample} is synchronized: every field here is touched under that lock only.
 * Its length is one state machine (rounds, trials, ceiling, noise floor) whose transitions read each other's fields
 * under that lock; the statistics it tests with are plain arithmetic here rather than a class of their own, so that
 * every threshold stays next to the comment that says why it is what it is.
 */
final class LoadTestedLimit extends AbstractLimit {
    private static final Logger LOG = LoggerFactory.getLogger(LoadTestedLimit.class);
    /** What the load is multiplied by when a trial opens on a 503 or two that came without a burst. */
    static final double SHALLOW_CUT = 0.75;
    /** The fewest answers in the rest of a 503's round for their share to count as the share before a trial. */
    static final int MIN_TAIL_ANSWERS = 4;
    /** Answers in one step of a trial. */
    static final int TRIAL_ANSWERS = 8;
    /**
     * The most answers one step of a trial waits for while none is a 503 and their count is still too small to
     * tell that the 503s stopped.
     */
    static final int MAX_TRIAL_ANSWERS = 4 * TRIAL_ANSWERS;
    /** Decreases a trial may make before it calls the 503s noise. */
    static final int TRIAL_DEPTH = 3;
    /** The recent answers whose share of 503s is set against the noise floor. */
    static final int WINDOW = 16;
    /** Rounds per step of growth at and past the ceiling, at first. */
    static final int PROBE_ROUNDS = 8;
    /** The most rounds per step there: each probe the server refuses again doubles them, up to this. */
    static final int MAX_PROBE_ROUNDS = 64;
    /** About how many answers the average share of 503s remembers. */
    static final int SHARE_MEMORY = 128;

    private final int min;
    private final int max;
    private final int step;
    private final double factor;
    private final boolean testsNoise;
    // Guarded by AbstractLimit.onSample's lock.
    private final boolean[] recent = new boolean[WINDOW];
    private int recentCount;
    private int recentNext;
    private int recentThrottled;
    private double averageShare;
    private int answersSeen;
    private double noiseMeasured;
    private int answersThisRound;
    private int ceiling;
    private int probeRounds = PROBE_ROUNDS;
    private int loadStoppedAt;
    // since the trial that found loadStoppedAt: its answers and the 503s at no more load, and its share before
    private int answersAtStoppedLoad;
    private int throttledAtStoppedLoad;
    private double shareBeforeStoppedLoad;
    private int limitBeforeStoppedLoad;
    private boolean decreased;
    private long lastDecrease;
    private Trial trial;

    LoadTestedLimit(ThrottleSettings settings) {
        super(settings.initialConcurrency());
        this.min = settings.minConcurrency();
        this.max = settings.maxConcurrency();
        this.step = settings.increaseStep();
        this.factor = settings.decreaseFactor();
        this.testsNoise = settings.testsNoise();
    }

    /** The share of 503s taken for noise now (0 until a trial found some). */
    synchronized double noiseFloor() {
        return floor();
    }

    private double floor() {
        return Math.min(noiseMeasured, averageShare);
    }

    @Override
    protected int _update(long startTime, long rtt, int inflight, boolean didDrop) {
        remember(didDrop);
        int limit = getLimit();
        if (loadStoppedAt > 0 && trial == null && inflight <= loadStoppedAt) {
            answersAtStoppedLoad++;
            if (didDrop) {
                throttledAtStoppedLoad++;
            }
        }
        if (trial != null) {
            return trialAnswer(limit, startTime, startTime + rtt, didDrop);
        }
        if (didDrop) {
            if (decreased && startTime - lastDecrease < 0) {
                return limit; // sent before the last decrease: part of the burst already answered for
            }
            if (!decreased && recentCount < WINDOW && recentThrottled < 2) {
                // the first 503 of a fresh governor, alone among its first answers: S3's rate limit answers a
                // burst, and halving a short read's few requests on one 503 costs more than the 503
                return limit;
            }
            // over the answers so far, however few: the trial's test weighs a share by the answers it rests on
            double before = Math.max(windowShare(), averageShare);
            if (!aboveNoise()) {
                return limit; // no more 503s than the noise this server sends at any load
            }
            if (loadStoppedAt > 0 && inflight <= loadStoppedAt && floor() == 0) {
                double since = (double) throttledAtStoppedLoad / answersAtStoppedLoad;
                if (since >= shareBeforeStoppedLoad - deviations(shareBeforeStoppedLoad, answersAtStoppedLoad, 2)) {
                    // a trial found the 503s stopped at this load, and here they come at no more, as often as before
                    // it: they were noise after all
                    noiseMeasured = Math.max(averageShare, 1.0 / SHARE_MEMORY);
                    averageShare = noiseMeasured;
                    loadStoppedAt = 0;
                    // and the limit that trial lowered goes back, as after a trial that found noise: climbing
                    // back a step a round would keep the reads serialized for most of a scan
                    ceiling = 0;
                    probeRounds = PROBE_ROUNDS;
                    answersThisRound = 0;
                    int back = Math.max(limit, limitBeforeStoppedLoad);
                    LOG.debug(
                            "503 with {} in flight, where a trial had found none: noise at {}, limit {} -> {}",
                            inflight,
                            noiseMeasured,
                            limit,
                            back);
                    return back;
                }
                // far fewer than before the trial: that load is just above the server's rate, and this is load
                loadStoppedAt = 0;
            }
            // S3's rate limit answers a burst of 503s, a sick node one here and there
            boolean burst = recentThrottled >= WINDOW / 4;
            // a 503 or two here and there are tested with a shallow cut first: noise costs the trial a quarter of
            // the load instead of half; 503s that go on at that cut, or a burst, are cut by the factor
            double by = testsNoise && !burst ? Math.max(factor, SHALLOW_CUT) : factor;
            int lowered = lowered(Math.min(limit, inflight), by);
            if (lowered >= limit) {
                return limit;
            }
            LOG.debug("503 with {} in flight: limit {} -> {}, trial {}", inflight, limit, lowered, testsNoise);
            decreased = true;
            lastDecrease = startTime + rtt;
            answersThisRound = 0;
            if (testsNoise) {
                trial = new Trial(limit, lastDecrease, before, recentCount, Math.min(limit, inflight), burst);
            }
            return lowered;
        }
        if (inflight * 2 < limit) {
            return limit; // the limit is not what holds requests back: growing it would prove nothing
        }
        boolean probing = ceiling > 0 && limit + step >= ceiling;
        if (++answersThisRound < (probing ? probeRounds * limit : limit)) {
            return limit;
        }
        answersThisRound = 0;
        if (limit > ceiling && ceiling > 0) {
            ceiling = 0; // passed without a 503 that counted: whatever held the rate there has gone
            probeRounds = PROBE_ROUNDS;
        }
        return (int) Math.min(max, (long) limit + step);
    }

    private int lowered(int from, double by) {
        return Math.max(min, (int) (from * by));
    }

    /** An answer while a trial runs: counts it if its request was sent during the step, and ends the step. */
    private int trialAnswer(int limit, long startTime, long now, boolean didDrop) {
        Trial running = trial;
        if (startTime - running.stepStart < 0) {
            if (running.depth == 1) {
                // the rest of the round the 503 came in: what the load before the decrease was answered
                running.tailAnswers++;
                if (didDrop) {
                    running.tailThrottled++;
                }
            }
            return limit; // sent before this step's decrease: says nothing about the lower limit
        }
        running.answers++;
        running.allAnswers++;
        if (didDrop) {
            running.throttled++;
            running.allThrottled++;
        }
        if (running.answers < TRIAL_ANSWERS) {
            return limit;
        }
        double share = (double) running.throttled / running.answers;
        if (running.depth == 1 && running.tailAnswers > 0) {
            // the answers of the round the 503 that opened the trial came in: the share before, where it says more
            // than the window (a first round's burst). Without that 503 itself: the trial opened because it came,
            // so counting it would make every share before look higher than it was; and over a few answers at
            // least, else one 503 reads as a share of 1.
            double roundShare =
                    running.tailAnswers < MIN_TAIL_ANSWERS ? 0 : (double) running.tailThrottled / running.tailAnswers;
            if (roundShare > running.shareBefore) {
                running.shareBefore = roundShare;
                running.beforeAnswers = running.tailAnswers;
            }
            running.burst |= running.tailThrottled >= 1 && roundShare >= 0.25;
        }
        boolean fell = clearlyBelow(share, running.answers, running.shareBefore, running.beforeAnswers);
        boolean few = running.throttled == 0 || running.throttled == 1 && !running.burst;
        if (!fell && few) {
            if (running.answers < MAX_TRIAL_ANSWERS) {
                // too few 503s to call them noise, too few answers to call them stopped: noise at one answer in
                // ten sends none in 8 answers almost every other time, and the tail of a load just cut sends one
                return limit;
            }
            fell = running.throttled == 0; // none in all those answers: sending less made them stop
        }
        LOG.debug(
                "trial step {} at limit {}: {} of {} answers 503 (before {}); fell {}",
                running.depth,
                limit,
                running.throttled,
                running.answers,
                running.shareBefore,
                fell);
        if (fell) {
            trial = null; // sending less made the 503s stop: they were load
            // the server refused the same level again: probe it half as often (TCP's backoff of its probes)
            probeRounds = ceiling > 0 && running.throttledAt >= ceiling
                    ? Math.min(MAX_PROBE_ROUNDS, 2 * probeRounds)
                    : PROBE_ROUNDS;
            ceiling = running.throttledAt;
            // a level where 503s stopped; where their share only fell, 503s there are still load
            loadStoppedAt = running.throttled > 0 ? 0 : limit;
            answersAtStoppedLoad = running.answers;
            throttledAtStoppedLoad = running.throttled;
            shareBeforeStoppedLoad = running.shareBefore;
            limitBeforeStoppedLoad = running.restoreTo;
            return limit;
        }
        int lowered = lowered(limit, factor);
        // a load still above the server's rate after a halving answers two or more of 8 (and one below it, none),
        // unless it was just above it: a trial opened by a burst goes on for one; a step that waited past 8 answers
        // saw a share too low for that
        boolean stillHigh =
                running.answers == TRIAL_ANSWERS && (running.throttled >= 2 || running.throttled == 1 && running.burst);
        if (stillHigh && running.depth < TRIAL_DEPTH && lowered < limit) {
            if (running.depth == 1) {
                // where the trial began, for judging it as a whole once its steps have their own shares before
                running.firstShareBefore = running.shareBefore;
                running.firstBeforeAnswers = running.beforeAnswers;
            }
            running.depth++;
            running.shareBefore = share; // the next step must do better than this one
            running.beforeAnswers = running.answers;
            running.throttledAt = limit; // 503s came at this level too: it is the ceiling if the next one ends them
            running.answers = 0;
            running.throttled = 0;
            running.stepStart = now;
            lastDecrease = now;
            return lowered;
        }
        if (running.depth > 1
                && clearlyBelow(
                        (double) running.allThrottled / running.allAnswers,
                        running.allAnswers,
                        running.firstShareBefore,
                        running.firstBeforeAnswers)) {
            // the last step no better than the one before, but the trial as a whole clearly below where it began:
            // load, whose last few 503s come from a level just above the server's rate
            LOG.debug(
                    "trial at limit {}: {} of {} answers 503 in all (before {}): load",
                    limit,
                    running.allThrottled,
                    running.allAnswers,
                    running.firstShareBefore);
            trial = null;
            ceiling = limit;
            loadStoppedAt = 0;
            return limit;
        }
        // as many 503s at a fraction of the load: noise, which sending less does not help
        LOG.debug("trial at limit {}: noise at a share of {}, limit back to {}", limit, share, running.restoreTo);
        trial = null;
        noiseMeasured = Math.max(share, 1.0 / SHARE_MEMORY);
        averageShare = Math.max(averageShare, noiseMeasured);
        answersThisRound = 0;
        return running.restoreTo;
    }

    /** Whether the 503s stand clearly above the noise floor, among the recent answers or on average. */
    private boolean aboveNoise() {
        double floor = floor();
        if (floor == 0) {
            return true;
        }
        return windowShare() > floor + deviations(floor, recentCount, 4)
                || averageShare > floor + deviations(floor, 2 * SHARE_MEMORY, 3);
    }

    private double windowShare() {
        return recentCount == 0 ? 0 : (double) recentThrottled / recentCount;
    }

    /**
     * Whether a share of 503s among {@code afterAnswers} answers is clearly (two standard errors) below one among
     * {@code beforeAnswers}: the two-proportion test, so that a share before measured on a few answers (a round of
     * three, all 503) is not taken as exact.
     */
    private static boolean clearlyBelow(double after, int afterAnswers, double before, int beforeAnswers) {
        if (beforeAnswers == 0) {
            // nothing before but the 503 that opened the trial: one answer, a 503
            before = 1;
            beforeAnswers = 1;
        }
        double pooled = (after * afterAnswers + before * beforeAnswers) / (afterAnswers + beforeAnswers);
        double variance = pooled * (1 - pooled) * (1.0 / afterAnswers + 1.0 / beforeAnswers);
        return before - after > 2 * Math.sqrt(variance);
    }

    private static double deviations(double share, int answers, double count) {
        return count * Math.sqrt(share * (1 - share) / answers);
    }

    private void remember(boolean throttled) {
        if (recentCount == WINDOW && recent[recentNext]) {
            recentThrottled--;
        }
        recent[recentNext] = throttled;
        if (throttled) {
            recentThrottled++;
        }
        recentNext = (recentNext + 1) % WINDOW;
        recentCount = Math.min(WINDOW, recentCount + 1);
        // the plain mean of the first answers, then an average that weighs the last SHARE_MEMORY or so
        answersSeen = Math.min(SHARE_MEMORY, answersSeen + 1);
        averageShare += ((throttled ? 1 : 0) - averageShare) / answersSeen;
        if (averageShare < 1e-3) {
            noiseMeasured = 0; // the noise went away: the next 503 is taken for load again
        }
    }

    @Override
    public String toString() {
        return "LoadTestedLimit[" + getLimit() + ", noise floor " + floor() + "]";
    }

    /** One trial: the limit it started from, the share of 503s before it, and the answers of its current step. */
    private static final class Trial {
        private final int restoreTo;
        private int throttledAt;
        private boolean burst;
        private double shareBefore;
        private int beforeAnswers;
        private int tailAnswers;
        private int tailThrottled;
        private long stepStart;
        private int depth = 1;
        private int answers;
        private int throttled;
        private int allAnswers;
        private int allThrottled;
        private double firstShareBefore;
        private int firstBeforeAnswers;

        Trial(int restoreTo, long stepStart, double shareBefore, int beforeAnswers, int throttledAt, boolean burst) {
            this.restoreTo = restoreTo;
            this.throttledAt = throttledAt;
            this.burst = burst;
            this.stepStart = stepStart;
            this.shareBefore = shareBefore;
            this.beforeAnswers = beforeAnswers;
        }
    }
}
