package io.inferencecache.controlplane.client;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/**
 * Logging of the {@code client} commands: warnings and errors only, to stderr, so that stdout
 * carries the command's output alone. Without this, logback's default configuration would write the
 * libraries' debug lines (Netty's) to stdout.
 */
public final class ClientLogging {
  private ClientLogging() {}

  /** Replaces the root logger's appenders with one stderr appender at WARN. */
  public static void warningsToStderr() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    final Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%level %logger{36}: %msg%n");
    encoder.start();
    final ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("client-stderr");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    root.addAppender(stderr);
    root.setLevel(Level.WARN);
  }
}
