package io.rangefetch.benchmarks.run;

/** Counts the requests readers send; reset before each run, read after it. */
public interface TrafficCounter {

    /** Forgets everything counted so far. */
    void reset();

    /** What was counted since the last {@link #reset()}. */
    Traffic read();

    /** For runs with nothing to count requests (a real endpoint, no proxy): always {@link Traffic#UNKNOWN}. */
    static TrafficCounter none() {
        return new TrafficCounter() {
            @Override
            public void reset() {}

            @Override
            public Traffic read() {
                return Traffic.UNKNOWN;
            }
        };
    }
}
