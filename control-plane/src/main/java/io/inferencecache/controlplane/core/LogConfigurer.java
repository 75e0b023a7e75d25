package io.inferencecache.controlplane.core;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.common.LoggingFactory;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import io.inferencecache.controlplane.config.LogSettings;
import java.util.Map;

/**
 * Applies {@code log.format} / {@code log.level} (flags {@code --log-format} / {@code --log-level})
 * to Dropwizard's logging factory: the root level, and on every console appender either the JSON
 * layout ({@code time}, {@code level}, {@code msg}, {@code logger}, {@code thread}, MDC keys at the
 * top level; the default) or Dropwizard's text layout.
 */
public final class LogConfigurer {
  private LogConfigurer() {}

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
