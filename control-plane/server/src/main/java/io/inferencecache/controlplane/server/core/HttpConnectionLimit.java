package io.inferencecache.controlplane.server.core;

import io.inferencecache.service.log.LogRateLimiter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the open connections of one HTTP listener. A connection opened while {@code max} are open is
 * closed at once (the client sees the connection closed, never a hung accept), and whenever the
 * listener reaches its cap, the idle timeout of its open connections is cut to {@code
 * limitedIdleMillis} so that idle keep-alive and slow clients make room quickly.
 *
 * <p>Jetty's own {@code NetworkConnectionLimit} pauses accepting instead; on this Jetty version a
 * client that connected while accepting was paused was not accepted once it resumed (its request
 * hung until the client gave up), so the cap closes surplus connections instead.
 *
 * <p>Thread-safe: the callbacks run on Jetty's selector and worker threads.
 */
final class HttpConnectionLimit implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(HttpConnectionLimit.class);

  /** One refusal line per 10 s at most; the next line says how many were left out. */
  private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

  private final int max;
  private final long limitedIdleMillis;
  private final AbstractConnector connector;
  private final String listener;
  private final AtomicInteger open = new AtomicInteger();
  private final LongAdder refused = new LongAdder();
  private final LogRateLimiter log = new LogRateLimiter(1, LOG_INTERVAL_NANOS, System::nanoTime);

  HttpConnectionLimit(
      final int max,
      final long limitedIdleMillis,
      final AbstractConnector connector,
      final String listener) {
    if (max <= 0) {
      throw new IllegalArgumentException("max: must be positive, was " + max);
    }
    this.max = max;
    this.limitedIdleMillis = limitedIdleMillis;
    this.connector = connector;
    this.listener = listener;
  }

  @Override
  public void onOpened(final Connection connection) {
    final int n = open.incrementAndGet();
    if (n > max) {
      refused.increment();
      final long suppressed = log.acquire();
      if (suppressed != LogRateLimiter.SUPPRESS) {
        LOG.warn(
            "event=http_connection_refused listener={} reason=max_connections"
                + " httpMaxConnections={} refusedSinceLastLine={}",
            listener,
            max,
            suppressed + 1);
      }
      connection.getEndPoint().close(); // onClosed follows and gives the slot back
      return;
    }
    if (n == max) {
      for (final EndPoint endPoint : connector.getConnectedEndPoints()) {
        if (endPoint.getIdleTimeout() > limitedIdleMillis) {
          endPoint.setIdleTimeout(limitedIdleMillis);
        }
      }
    }
  }

  @Override
  public void onClosed(final Connection connection) {
    open.decrementAndGet();
  }

  /** Connections open on the listener (counted from open to close). */
  int open() {
    return open.get();
  }

  /** Connections closed at once because {@code max} were open. */
  long refused() {
    return refused.sum();
  }
}
