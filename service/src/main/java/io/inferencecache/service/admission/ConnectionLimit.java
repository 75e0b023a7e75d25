package io.inferencecache.service.admission;

import io.inferencecache.service.log.LogRateLimiter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the connections a listening channel accepts and closes new ones at once while {@code max}
 * are open. Sits first in the pipeline of the <em>listening</em> channel, where every accepted
 * child channel passes as a message on its way to the bootstrap's acceptor: a refused child is
 * closed before it is registered, so it costs no event-loop work, no HTTP/2 state and no handshake.
 *
 * <p>An accepted child is counted until its close future completes. One that is accepted but then
 * fails to register with an event loop (only while the server shuts down) stays counted; that
 * cannot matter after shutdown.
 *
 * <p>Thread-safe: {@link #channelRead} runs on the listening channel's event loop, the decrement on
 * the child's.
 */
@ChannelHandler.Sharable
public final class ConnectionLimit extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);

  /** One refusal line per 10 s at most; the next line says how many were left out. */
  private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final LongAdder refused = new LongAdder();
  private final LogRateLimiter log = new LogRateLimiter(1, LOG_INTERVAL_NANOS, System::nanoTime);
  private final ChannelFutureListener onClose = f -> open.decrementAndGet();

  /**
   * @param max open connections at which new ones are refused; zero counts without refusing
   */
  public ConnectionLimit(final int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max: must be >= 0, was " + max);
    }
    this.max = max;
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof Channel child) {
      final int now = open.incrementAndGet();
      if (max > 0 && now > max) {
        open.decrementAndGet();
        refused.increment();
        child.unsafe().closeForcibly();
        logRefusal();
        return;
      }
      child.closeFuture().addListener(onClose);
    }
    ctx.fireChannelRead(msg);
  }

  private void logRefusal() {
    final long suppressed = log.acquire();
    if (suppressed != LogRateLimiter.SUPPRESS) {
      LOG.warn(
          "event=grpc_connection_refused reason=max_connections maxConnections={}"
              + " refusedSinceLastLine={}",
          max,
          suppressed + 1);
    }
  }

  /** Connections accepted and not yet closed. */
  public int open() {
    return open.get();
  }

  /** Connections closed at accept because {@code max} were open. */
  public long refused() {
    return refused.sum();
  }
}
