package io.rangefetch.it;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What Rangefetch showed a test besides its log, as text to search for secrets: the exceptions its reads threw
 * (message, stack trace, causes and suppressed exceptions, as printed) and the {@code toString} of its objects.
 * Thread-safe.
 */
final class Transcript {
    private final List<String> texts = Collections.synchronizedList(new ArrayList<>());

    void exception(Throwable failure) {
        texts.add(stackTrace(failure));
    }

    void value(Object value) {
        texts.add(String.valueOf(value));
    }

    List<String> texts() {
        synchronized (texts) {
            return List.copyOf(texts);
        }
    }

    int size() {
        return texts.size();
    }

    /** The message, stack trace, causes and suppressed exceptions of {@code failure}, as printed. */
    static String stackTrace(Throwable failure) {
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            failure.printStackTrace(writer);
        }
        return text.toString();
    }
}
