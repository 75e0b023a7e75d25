package io.inferencecache.controlplane.server.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes HTTP/1.1 connections that take too long to send a request's headers (a "slowloris" keeps a
 * connection open by sending a header byte now and then, which resets Jetty's idle timeout). Jetty
 * has no header-read timeout of its own; this listener, registered on a connector, checks each of
 * its connections every {@code timeout}:
 *
 * <ul>
 *   <li>a connection that has not started a request {@code timeout} after it opened (no byte, or
 *       its first request line or headers still incomplete) is closed;
 *   <li>later, a connection seen twice in a row with the same request count and its parser still
 *       before the end of a request's headers is closed (so within one to two {@code timeout}s).
 * </ul>
 *
 * A connection idle between requests (parser at the start, after at least one request) is left to
 * the connector's idle timeout. Reads of the parser state from the scheduler thread are racy by
 * nature; a connection whose headers complete meanwhile is seen with a new request count or a
 * parser past its headers at the next check and kept.
 *
 * <p>Reads the parser through Jetty's {@code org.eclipse.jetty.server.internal.HttpConnection} (the
 * only way to its state); pinned with the Jetty version in the parent POM, covered by {@code
 * ConnectionLimitsIT}.
 */
final class HeaderTimeout implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderTimeout.class);

  private final long timeoutMillis;
  private final Scheduler scheduler;
  private final String listener;
  private final LongAdder closed = new LongAdder();

  HeaderTimeout(final long timeoutMillis, final Scheduler scheduler, final String listener) {
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("timeout: must be positive, was " + timeoutMillis);
    }
    this.timeoutMillis = timeoutMillis;
    this.scheduler = scheduler;
    this.listener = listener;
  }

  @Override
  public void onOpened(final Connection connection) {
    if (connection instanceof HttpConnection http) {
      new Check(http).schedule();
    }
  }

  /** Connections this listener closed. */
  long closed() {
    return closed.sum();
  }

  /** The per-connection check, rescheduled until the connection closes or is closed. */
  private final class Check implements Runnable {
    private final HttpConnection connection;
    private long requestsAtLastCheck;
    private boolean incompleteAtLastCheck = true; // a new connection is before its first headers

    Check(final HttpConnection connection) {
      this.connection = connection;
    }

    void schedule() {
      scheduler.schedule(this, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
      if (!connection.getEndPoint().isOpen()) {
        return;
      }
      final long requests = connection.getMessagesIn();
      final HttpParser parser = connection.getParser();
      final boolean incomplete = parser.inHeaderState() && (!parser.isStart() || requests == 0);
      if (incomplete && incompleteAtLastCheck && requests == requestsAtLastCheck) {
        closed.increment();
        LOG.debug(
            "event=http_header_timeout listener={} remote={} requests={}",
            listener,
            connection.getEndPoint().getRemoteSocketAddress(),
            requests);
        connection.getEndPoint().close();
        return;
      }
      requestsAtLastCheck = requests;
      incompleteAtLastCheck = incomplete;
      schedule();
    }
  }
}
