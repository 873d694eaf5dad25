package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A stream factory was opened.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} records it.
 */
@Name(FactoryOpenedEvent.NAME)
@Label("Factory Opened")
@Category({"Rangefetch", "Factories"})
@Description("A stream factory was opened")
@StackTrace(false)
public final class FactoryOpenedEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.FactoryOpened";

    @Label("Factory")
    @Description("The factory's number within its JVM, as in its thread names")
    public long factory;

    @Label("Memory Budget")
    @DataAmount
    public long memoryBudget;
}
