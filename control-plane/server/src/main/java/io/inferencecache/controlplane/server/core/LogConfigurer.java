package io.inferencecache.controlplane.server.core;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.common.LoggingFactory;
import io.dropwizard.logging.common.LoggingUtil;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import io.inferencecache.controlplane.server.config.LogSettings;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Where the commands log: always standard error, so that a command's standard output is its output
 * only ({@code doctor -o json} is one JSON document, {@code fake-engine} prints its expectations).
 *
 * <p>{@link #console} is the command line's logging from the first line of {@code main}: one text
 * appender on standard error, the root at the level given ({@code WARN} until a command says
 * otherwise), {@code java.util.logging} routed into it. {@link #apply} adapts Dropwizard's logging
 * factory of {@code serve} and {@code controller} (which replaces that set-up when it starts):
 * {@code log.format} / {@code log.level} (flags {@code --log-format} / {@code --log-level}) become
 * the root level and, on every console appender, standard error and either the JSON layout ({@code
 * time}, {@code level}, {@code msg}, {@code logger}, {@code thread}, MDC keys at the top level; the
 * default) or Dropwizard's text layout.
 */
public final class LogConfigurer {
  /** The root level of the command line before a command sets its own. */
  public static final String CONSOLE_DEFAULT_LEVEL = "warn";

  private static final String TEXT_PATTERN = "%-5level [%d{ISO8601,UTC}] %logger: %msg%n%rEx";

  private LogConfigurer() {}

  /**
   * Replaces the logging configuration with one text appender on standard error at {@code level}.
   *
   * @param level {@code debug}, {@code info}, {@code warn} ({@code warning}) or {@code error}
   * @throws IllegalArgumentException naming {@code --log-level} for any other value
   */
  public static void console(final String level) {
    final Level root = Level.toLevel(LogSettings.parseLevel(level));
    final LoggerContext context = LoggingUtil.getLoggerContext();
    context.reset();
    final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(TEXT_PATTERN);
    encoder.start();
    final ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("stderr");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    final Logger logger = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    logger.addAppender(stderr);
    logger.setLevel(root);
    LoggingUtil.hijackJDKLogging();
  }

  /**
   * Sets the root level of whatever configuration is in place (a command's {@code --log-level}).
   *
   * @throws IllegalArgumentException naming {@code --log-level} for an invalid value
   */
  public static void level(final String level) {
    final Level root = Level.toLevel(LogSettings.parseLevel(level));
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(root);
  }

  /**
   * @throws StartupException (exit 2) for an invalid format or level
   */
  public static void apply(final LogSettings settings, final LoggingFactory logging) {
    final String format;
    final String level;
    try {
      format = LogSettings.parseFormat(settings.getFormat());
      level = LogSettings.parseLevel(settings.getLevel());
    } catch (IllegalArgumentException e) {
      throw new StartupException(StartupException.USAGE, "server: " + e.getMessage(), e);
    }
    if (!(logging instanceof DefaultLoggingFactory dlf)) {
      return;
    }
    dlf.setLevel(level);
    for (final AppenderFactory<ILoggingEvent> appender : dlf.getAppenders()) {
      if (appender instanceof ConsoleAppenderFactory<ILoggingEvent> console) {
        console.setTarget(ConsoleAppenderFactory.ConsoleStream.STDERR);
        console.setLayout("json".equals(format) ? jsonLayout() : null);
      }
    }
  }

  private static EventJsonLayoutBaseFactory jsonLayout() {
    final EventJsonLayoutBaseFactory json = new EventJsonLayoutBaseFactory();
    json.setCustomFieldNames(Map.of("timestamp", "time", "message", "msg", "loggerName", "logger"));
    json.setTimestampFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    json.setFlattenMdc(true);
    return json;
  }
}
