package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A claim found no room in the memory budget: a read's bytes then go straight into its buffer, a prefetch is not made.
 *
 * <p><b>Public because</b> {@code internal.cache.BlockCache} records it.
 */
@Name(BudgetFullEvent.NAME)
@Label("Budget Full")
@Category({"Rangefetch", "Cache"})
@Description(
        "A claim found no room in the memory budget: a read's bytes then go straight into its buffer, a prefetch is not made")
@StackTrace(false)
public final class BudgetFullEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.BudgetFull";

    @Label("Wanted")
    @DataAmount
    public long wanted;

    @Label("In Use")
    @DataAmount
    public long inUse;

    @Label("Budget")
    @DataAmount
    public long budget;

    @Label("For Prefetch")
    public boolean forPrefetch;
}
