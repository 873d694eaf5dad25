package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Everything logged under one logger name (and below it) at every level, captured as text for a test to search: each
 * event's formatted message, every argument it was given (used in the message or not), its key-value pairs, and the
 * whole text of its throwable (causes, suppressed exceptions and stack traces). While capturing, the logger logs at
 * {@code TRACE} and does not pass its events on to the root's appenders (which would print all of them);
 * {@link #close()} puts its level and additivity back.
 *
 * <p>Needs logback as the slf4j binding (on integration-tests' class path it comes with S3Proxy): with any other, a
 * capture would see nothing and prove nothing, so {@link #start} fails. Thread-safe.
 */
final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level levelBefore;
    private final boolean additiveBefore;
    private final AppenderBase<ILoggingEvent> appender;
    private final List<Event> events = new ArrayList<>(); // guarded by itself

    /** One captured event: its level, its logger, and all its text. */
    record Event(Level level, String logger, String text) {
        @Override
        public String toString() {
            return level + " " + logger + " - " + text;
        }
    }

    private LogCapture(Logger logger) {
        this.logger = logger;
        this.levelBefore = logger.getLevel();
        this.additiveBefore = logger.isAdditive();
        this.appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                Event captured = new Event(event.getLevel(), event.getLoggerName(), textOf(event));
                synchronized (events) {
                    events.add(captured);
                }
            }
        };
    }

    /** Starts capturing everything logged under {@code loggerName} at {@code TRACE}. */
    static LogCapture start(String loggerName) {
        requireNonNull(loggerName, "loggerName is null");
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            throw new IllegalStateException("The slf4j binding is "
                    + factory.getClass().getName() + ", not logback: a capture would see nothing");
        }
        LogCapture capture = new LogCapture(context.getLogger(loggerName));
        capture.appender.setContext(context);
        capture.appender.setName("rangefetch-it-capture");
        capture.appender.start();
        capture.logger.addAppender(capture.appender);
        capture.logger.setLevel(Level.TRACE);
        capture.logger.setAdditive(false);
        return capture;
    }

    private static String textOf(ILoggingEvent event) {
        StringBuilder text = new StringBuilder(String.valueOf(event.getFormattedMessage()));
        Object[] arguments = event.getArgumentArray();
        if (arguments != null) {
            for (Object argument : arguments) {
                text.append("\n  argument: ").append(argument);
            }
        }
        if (event.getKeyValuePairs() != null) {
            event.getKeyValuePairs().forEach(pair -> text.append("\n  ").append(pair));
        }
        if (event.getThrowableProxy() != null) {
            text.append('\n').append(ThrowableProxyUtil.asString(event.getThrowableProxy()));
        }
        return text.toString();
    }

    /** What was captured so far. */
    List<Event> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** The events at {@code DEBUG} or below ({@code TRACE}): what only a capture at those levels sees. */
    List<Event> debugEvents() {
        return events().stream()
                .filter(event -> !event.level().isGreaterOrEqual(Level.INFO))
                .toList();
    }

    /** Stops capturing; the logger's level and additivity are as before {@link #start}. */
    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
        logger.setLevel(levelBefore);
        logger.setAdditive(additiveBefore);
    }
}
