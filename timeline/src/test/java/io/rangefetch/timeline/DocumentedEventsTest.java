package io.rangefetch.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.DocumentedEvents;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stand-ins the tests record have the names and fields docs/OBSERVABILITY.md documents (core's test holds core's
 * event classes to the same document), so what the timeline reads is what Rangefetch records.
 */
class DocumentedEventsTest {
    @Test
    void theRecordedStandInsAreTheDocumentedEvents() throws IOException {
        assertThat(DocumentedEvents.declared(List.of(
                        SampleRecording.GetAttemptEvent.class,
                        SampleRecording.MetadataRequestEvent.class,
                        SampleRecording.ReadWaitEvent.class,
                        SampleRecording.StreamOpenedEvent.class,
                        SampleRecording.StreamClosedEvent.class,
                        SampleRecording.FactoryOpenedEvent.class,
                        SampleRecording.FactoryClosedEvent.class,
                        SampleRecording.PredictionWastedEvent.class,
                        SampleRecording.GovernorChangeEvent.class,
                        SampleRecording.CacheEvictionEvent.class,
                        SampleRecording.BudgetFullEvent.class)))
                .isEqualTo(DocumentedEvents.documented(DocumentedEvents.DOC));
    }
}
