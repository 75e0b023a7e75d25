package io.inferencecache.service.lookup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.function.LongSupplier;

/**
 * <b>Benchmark support</b> (perf module): drives the zero-copy LookupRoute path of a {@link
 * ZeroCopyLookupRoute} without a transport, exactly as the gRPC server does around it — parse the
 * request from an {@link InputStream} into a pooled call, run the handler, encode the response,
 * drain the response into an {@link OutputStream}; the call returns itself to the pool when its
 * response has been fully drained. Missing are only the transport's own parts (framing, {@code
 * Context}, deadline watchdog registration). Not used by the server; one thread at a time per
 * instance is not required (the pool is shared and thread-safe), but the caller's streams must not
 * be shared.
 */
public final class InProcessLookupPath {
  private final ZeroCopyLookupRoute route;
  private final LongSupplier nanoTime;

  /** A driver for {@code route}, whose handler runs on {@code nanoTime}'s clock. */
  public InProcessLookupPath(final ZeroCopyLookupRoute route, final LongSupplier nanoTime) {
    this.route = route;
    this.nanoTime = nanoTime;
  }

  /** A driver for {@code route} (a service's {@code zeroCopy()}) on {@link System#nanoTime()}. */
  public static InProcessLookupPath of(final ZeroCopyLookupRoute route) {
    return new InProcessLookupPath(route, System::nanoTime);
  }

  /**
   * Answers one serialized LookupRouteRequest read from {@code request} (as the transport hands it
   * to the marshaller: give it an {@code io.grpc.KnownLength} stream, and an {@code
   * io.grpc.HasByteBuffer} one for the zero-copy read of a direct buffer) and writes the serialized
   * LookupRouteResponse to {@code out}. Returns the response's length in bytes.
   */
  public int answer(final InputStream request, final OutputStream out) {
    final long start = nanoTime.getAsLong();
    final LookupCall c = route.parse(request);
    route.answer(c, start);
    c.armRelease();
    try {
      return c.drainTo(out); // fully drained: the call is back in the pool
    } catch (IOException e) {
      route.release(c);
      throw new UncheckedIOException(e);
    }
  }
}
