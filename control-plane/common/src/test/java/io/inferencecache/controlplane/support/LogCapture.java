package io.inferencecache.controlplane.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/**
 * Captures one class's log events (at DEBUG and above) for assertions. Attach it after a server has
 * started: Dropwizard reconfigures logging at start-up.
 */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final Level previous;
  private final boolean previousAdditive;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture(final Class<?> type) {
    logger = (Logger) LoggerFactory.getLogger(type);
    previous = logger.getLevel();
    previousAdditive = logger.isAdditive();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.DEBUG);
    logger.setAdditive(false); // keep captured lines out of the console
  }

  public static LogCapture of(final Class<?> type) {
    return new LogCapture(type);
  }

  /** Formatted messages logged at {@code level}. */
  public List<String> messages(final Level level) {
    final List<ILoggingEvent> events;
    synchronized (appender) {
      events = new ArrayList<>(appender.list);
    }
    return events.stream()
        .filter(e -> e.getLevel().equals(level))
        .map(ILoggingEvent::getFormattedMessage)
        .collect(Collectors.toList());
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(previous);
    logger.setAdditive(previousAdditive);
  }
}
