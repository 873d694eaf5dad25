package io.rangefetch.internal.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.DocumentedEvents;
import java.io.IOException;
import java.util.List;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import org.junit.jupiter.api.Test;

/**
 * docs/OBSERVABILITY.md documents every event Rangefetch emits, with exactly the fields it has, in their order: the
 * names and fields are what recordings, dashboards and {@code ./rangefetch-timeline} depend on.
 */
class FlightRecorderEventsDocumentedTest {
    private static final List<Class<? extends Event>> EVENTS = List.of(
            GetAttemptEvent.class,
            MetadataRequestEvent.class,
            ReadWaitEvent.class,
            StreamOpenedEvent.class,
            StreamClosedEvent.class,
            FactoryOpenedEvent.class,
            FactoryClosedEvent.class,
            PredictionWastedEvent.class,
            GovernorChangeEvent.class,
            CacheEvictionEvent.class,
            BudgetFullEvent.class);

    @Test
    void everyEventIsDocumentedWithItsFieldsInOrder() throws IOException {
        assertThat(EVENTS)
                .allSatisfy(event -> assertThat(EventType.getEventType(event).getCategoryNames())
                        .first()
                        .isEqualTo("Rangefetch"));
        assertThat(DocumentedEvents.documented(DocumentedEvents.DOC)).isEqualTo(DocumentedEvents.declared(EVENTS));
    }
}
