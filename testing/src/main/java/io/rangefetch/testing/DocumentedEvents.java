package io.rangefetch.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;

/**
 * The Flight Recorder events docs/OBSERVABILITY.md documents, and those event classes declare, as event name to
 * field names in order: so that core's events and what {@code ./rangefetch-timeline}'s tests record are held to
 * one document.
 */
public final class DocumentedEvents {
    /** docs/OBSERVABILITY.md from a module's directory, where its tests run. */
    public static final Path DOC = Path.of("..", "docs", "OBSERVABILITY.md");

    // the fields every event has, which JFR adds itself
    private static final Set<String> IMPLICIT = Set.of("startTime", "duration", "eventThread", "stackTrace");
    private static final Pattern SECTION = Pattern.compile("(?m)^### `(rangefetch\\.\\w+)`$");
    private static final Pattern FIELD = Pattern.compile("(?m)^\\| `(\\w+)` \\|");

    private DocumentedEvents() {}

    /** Each event's section (its heading to the next heading) and the fields its table lists, in the doc's order. */
    public static Map<String, List<String>> documented(Path doc) throws IOException {
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        Map<String, List<String>> documented = new LinkedHashMap<>();
        Matcher section = SECTION.matcher(text);
        while (section.find()) {
            int next = text.indexOf("\n#", section.end());
            Matcher field = FIELD.matcher(text.substring(section.end(), next < 0 ? text.length() : next));
            List<String> fields = new ArrayList<>();
            while (field.find()) {
                fields.add(field.group(1));
            }
            documented.put(section.group(1), fields);
        }
        return documented;
    }

    /** The events {@code classes} declare: each one's name and its own fields, in their order. */
    public static Map<String, List<String>> declared(List<Class<? extends Event>> classes) {
        Map<String, List<String>> declared = new LinkedHashMap<>();
        for (Class<? extends Event> event : classes) {
            EventType type = EventType.getEventType(event);
            declared.put(
                    type.getName(),
                    type.getFields().stream()
                            .map(ValueDescriptor::getName)
                            .filter(name -> !IMPLICIT.contains(name))
                            .toList());
        }
        return declared;
    }
}
