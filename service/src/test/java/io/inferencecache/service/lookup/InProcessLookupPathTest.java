package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.server.Fixtures;
import io.inferencecache.service.server.ServiceHarness;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link InProcessLookupPath} (benchmark support) answers like the server's zero-copy path, from a
 * heap stream and from a direct buffer read in place, and returns every call to the pool.
 */
@Timeout(60)
class InProcessLookupPathTest {

  /** A KnownLength + HasByteBuffer stream over a direct buffer, as grpc-netty hands it over. */
  private static final class DirectStream extends InputStream
      implements KnownLength, HasByteBuffer {
    private final ByteBuffer b;

    DirectStream(final byte[] bytes) {
      b = ByteBuffer.allocateDirect(bytes.length + 16);
      b.position(16); // not at the start of the buffer
      b.put(bytes).flip().position(16);
    }

    @Override
    public boolean byteBufferSupported() {
      return true;
    }

    @Override
    public ByteBuffer getByteBuffer() {
      return b;
    }

    @Override
    public int available() {
      return b.remaining();
    }

    @Override
    public int read() {
      return b.hasRemaining() ? b.get() & 0xFF : -1;
    }
  }

  /** A KnownLength heap stream (the parser copies it). */
  private static final class HeapStream extends ByteArrayInputStream implements KnownLength {
    HeapStream(final byte[] bytes) {
      super(bytes);
    }
  }

  @Test
  void answersFromHeapAndDirectStreamsAndPoolsTheCalls() throws Exception {
    try (ServiceHarness h = ServiceHarness.defaults(true)) {
      h.report(Fixtures.chainUpdate("r-a", Fixtures.hashes(1, 8), 16));
      final InProcessLookupPath path = InProcessLookupPath.of(h.service.zeroCopy());
      final LookupRouteRequest req = Fixtures.chainRequest(Fixtures.hashes(1, 8), 16).build();
      final byte[] bytes = req.toByteArray();
      final LookupRouteResponse viaGrpc = h.stub.lookupRoute(req);
      assertThat(viaGrpc.getReasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
      final int tracked = h.service.zeroCopy().trackedCalls();
      for (int i = 0; i < 50; i++) {
        for (InputStream in : new InputStream[] {new HeapStream(bytes), new DirectStream(bytes)}) {
          final ByteArrayOutputStream out = new ByteArrayOutputStream();
          final int n = path.answer(in, out);
          assertThat(n).isEqualTo(out.size());
          final LookupRouteResponse r = LookupRouteResponse.parseFrom(out.toByteArray());
          assertThat(r.getReasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
          assertThat(r.getReplicaScoresList()).hasSize(1);
          assertThat(r.getReplicaScores(0).getReplicaId()).isEqualTo("r-a");
          assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
        }
      }
      // Each call went back to the pool once its response was drained.
      assertThat(h.service.zeroCopy().trackedCalls()).isLessThanOrEqualTo(tracked + 1);
    }
  }

  @Test
  void malformedRequestFailsOpen() throws Exception {
    try (ServiceHarness h = ServiceHarness.defaults(true)) {
      final ByteArrayOutputStream out = new ByteArrayOutputStream();
      InProcessLookupPath.of(h.service.zeroCopy())
          .answer(new HeapStream(new byte[] {(byte) 0xFF}), out);
      assertThat(LookupRouteResponse.parseFrom(out.toByteArray()).getReasonCode())
          .isEqualTo(ReasonCodes.NO_HINT);
    }
  }
}
