package io.inferencecache.service.lookup;

import com.google.common.base.Utf8;
import io.grpc.Context;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.service.wire.WireReader;
import io.inferencecache.service.wire.WireWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One LookupRoute call on the zero-copy path, pooled and reused: the request parsed straight from
 * the transport's buffer (strings and hashes copied once into this object's own arrays, no
 * per-field objects), the router's result, and the encoded response, which this object also streams
 * to the transport as a {@link Drainable} {@link InputStream}. Owned by one call at a time.
 */
final class LookupCall extends InputStream
    implements Drainable, KnownLength, RouteCall, DeadlineWatchdog.Call {
  final RouteRequest input = new RouteRequest();
  final RouteResult output = new RouteResult();
  final WireReader reader = new WireReader();
  private final WireReader sloReader = new WireReader();
  final WireWriter writer = new WireWriter();
  final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
  byte[] copy = new byte[1024];

  private byte[] strings = new byte[256];
  private int stringsUsed;
  private final UnsafeBuffer stringsView = new UnsafeBuffer(strings);
  private int adapterOffset;
  private int adapterLength;

  boolean malformed;
  int readPos;

  // Per-call state.
  final WatchedCall watch = new WatchedCall();
  private final ZeroCopyLookupRoute route;
  volatile long deadlineNanos = Long.MAX_VALUE;
  Context grpcContext;
  StreamObserver<LookupCall> observer;

  /** A call of {@code route}'s pool ({@code null}: a one-off reply, never watched). */
  LookupCall(final ZeroCopyLookupRoute route) {
    this.route = route;
  }

  LookupCall resetCall() {
    input.reset();
    stringsUsed = 0;
    adapterOffset = 0;
    adapterLength = 0;
    malformed = false;
    readPos = 0;
    writer.reset();
    grpcContext = null;
    observer = null;
    deadlineNanos = Long.MAX_VALUE;
    return this;
  }

  // ---- RouteCall
  @Override
  public long deadlineNanos() {
    return deadlineNanos;
  }

  @Override
  public boolean cancelled() {
    final Context c = grpcContext;
    return c != null && c.isCancelled();
  }

  @Override
  public void deadlineResolved(final long deadline) {
    if (route != null && deadline != Long.MAX_VALUE) {
      watch.arm(deadline);
      route.armed(this);
    }
  }

  @Override
  public boolean claim() {
    return watch.claim();
  }

  // ---- DeadlineWatchdog.Call
  @Override
  public WatchedCall watch() {
    return watch;
  }

  @Override
  public void timedOut(final long nowNanos) {
    route.timedOut(this, nowNanos);
  }

  // ---- Parsing (protobuf wire format of LookupRouteRequest)

  private int copyString(final DirectBuffer b, final int offset, final int length) {
    if (stringsUsed + length > strings.length) {
      strings = Arrays.copyOf(strings, Math.max(strings.length * 2, stringsUsed + length));
      stringsView.wrap(strings);
    }
    b.getBytes(offset, strings, stringsUsed, length);
    final int at = stringsUsed;
    stringsUsed += length;
    return at;
  }

  /**
   * Parses a LookupRouteRequest from {@code b[offset, offset+length)}. Returns false (and marks the
   * call malformed) on any wire-format error, and on invalid UTF-8 in model_id, tenant_id,
   * hash_scheme or adapter_id; never throws. prompt_text is not checked (never echoed; the
   * tokenizer decodes it leniently).
   */
  boolean parse(
      final DirectBuffer b, final int offset, final int length, final int maxPromptBytes) {
    final LookupRequest q = input.request();
    final WireReader r = reader.wrap(b, offset, length);
    int prefixTokens = 0;
    boolean hasPrefixHash = false;
    int tag;
    while ((tag = r.tag()) != 0) {
      final int field = tag >>> 3;
      final int wt = tag & 7;
      switch (field) {
        case 1, 2, 5, 11 -> {
          if (wt != WireReader.LEN) {
            return fail();
          }
          final int n = r.length();
          if (!r.ok()) {
            return fail();
          }
          final int at = copyString(b, r.position(), n);
          r.advance(n);
          if (!Utf8.isWellFormed(strings, at, n)) {
            // proto3 strings must be UTF-8 (protobuf rejects the message). Fail open: NO_HINT.
            // Never echo such bytes: adapter_id is copied into the response, and a response
            // with invalid UTF-8 fails to parse in every protobuf client (found by fuzzing).
            return fail();
          }
          if (field == 1) {
            q.model().set(stringsView, at, n);
          } else if (field == 2) {
            q.tenant().set(stringsView, at, n);
          } else if (field == 5) {
            q.hashScheme().set(stringsView, at, n);
          } else {
            q.adapter().set(stringsView, at, n);
            adapterOffset = at;
            adapterLength = n;
          }
        }
        case 3 -> {
          if (wt != WireReader.LEN) {
            return fail();
          }
          final int n = r.length();
          if (!r.ok()) {
            return fail();
          }
          q.exact(b, r.position(), n, 0);
          hasPrefixHash = true;
          r.advance(n);
        }
        case 4 -> {
          if (wt != WireReader.VARINT) {
            return fail();
          }
          prefixTokens = (int) r.varint();
        }
        case 6 -> {
          if (wt != WireReader.LEN) {
            return fail();
          }
          final int n = r.length();
          if (!r.ok() || !parseSlo(b, r.position(), n, q)) {
            return fail();
          }
          r.advance(n);
        }
        case 7 -> {
          if (wt != WireReader.LEN) {
            return fail();
          }
          final int n = r.length();
          if (!r.ok()) {
            return fail();
          }
          q.addBlockHash(b, r.position(), n);
          r.advance(n);
        }
        case 8, 9 -> {
          if (wt == WireReader.VARINT) {
            final int v = (int) r.varint();
            if (field == 8) {
              q.addBlockTokenCount(v);
            } else {
              input.addTokenId(v);
            }
          } else if (wt == WireReader.LEN) {
            final int n = r.length();
            if (!r.ok()) {
              return fail();
            }
            final int end = r.position() + n;
            while (r.ok() && r.position() < end) {
              final int v = (int) r.varint();
              if (field == 8) {
                q.addBlockTokenCount(v);
              } else {
                input.addTokenId(v);
              }
            }
            if (r.position() != end) {
              return fail();
            }
          } else {
            return fail();
          }
        }
        case 10 -> {
          if (wt != WireReader.LEN) {
            return fail();
          }
          final int n = r.length();
          if (!r.ok()) {
            return fail();
          }
          input.prompt(b, r.position(), n, maxPromptBytes);
          r.advance(n);
        }
        case 100 -> { // max_replicas (int32): an inference-cache extension
          if (wt != WireReader.VARINT) {
            return fail();
          }
          q.maxReplicas((int) r.varint());
        }
        default -> r.skip(wt);
      }
      if (!r.ok()) {
        return fail();
      }
    }
    if (!r.ok()) {
      return fail();
    }
    if (hasPrefixHash) {
      q.exact(q.exactArray(), 0, q.exactLength(), prefixTokens);
    } else {
      q.exact(q.exactArray(), 0, 0, prefixTokens);
    }
    return true;
  }

  private boolean parseSlo(
      final DirectBuffer b, final int offset, final int length, final LookupRequest q) {
    final WireReader r = sloReader.wrap(b, offset, length);
    int tag;
    while ((tag = r.tag()) != 0) {
      if ((tag >>> 3) == 1 && (tag & 7) == WireReader.VARINT) {
        q.ttftMs((int) r.varint());
      } else {
        r.skip(tag & 7);
      }
    }
    return r.ok();
  }

  private boolean fail() {
    malformed = true;
    return false;
  }

  // ---- Response encoding (protobuf wire format of LookupRouteResponse)

  void encode() {
    final WireWriter w = writer.reset();
    final RouteResult o = output;
    final int n = o.scoreCount();
    for (int i = 0; i < n; i++) {
      final byte[] name = o.replicaNameUtf8(i);
      final float score = o.score(i);
      final int matched = o.matchedTokens(i);
      final float prob = o.estimatedCacheHitProb(i);
      final int tier = o.tier(i);
      int size = 0;
      if (name.length > 0) {
        size += 1 + WireWriter.varintSize(name.length) + name.length;
      }
      if (Float.floatToRawIntBits(score) != 0) {
        size += 5;
      }
      if (matched != 0) {
        size += 1 + WireWriter.varintSize(matched);
      }
      if (Float.floatToRawIntBits(prob) != 0) {
        size += 5;
      }
      if (tier != 0) {
        size += 1 + WireWriter.varintSize(tier);
      }
      w.tag(1, WireReader.LEN);
      w.varint(size);
      w.utf8Field(1, name);
      if (Float.floatToRawIntBits(score) != 0) {
        w.tag(2, WireReader.I32);
        w.fixed32(Float.floatToRawIntBits(score));
      }
      if (matched != 0) {
        w.tag(3, WireReader.VARINT);
        w.varint(matched);
      }
      if (Float.floatToRawIntBits(prob) != 0) {
        w.tag(4, WireReader.I32);
        w.fixed32(Float.floatToRawIntBits(prob));
      }
      if (tier != 0) {
        w.tag(5, WireReader.VARINT);
        w.varint(tier);
      }
    }
    w.asciiField(2, o.reasonCode());
    if (o.latencyMicros() != 0) {
      w.tag(3, WireReader.VARINT);
      w.varint(o.latencyMicros());
    }
    final int echo = o.echoCount();
    if (echo > 0) {
      int size = 0;
      for (int i = 0; i < echo; i++) {
        size += WireWriter.varintSize(o.echoToken(i) & 0xFFFFFFFFL);
      }
      w.tag(4, WireReader.LEN);
      w.varint(size);
      for (int i = 0; i < echo; i++) {
        w.varint(o.echoToken(i) & 0xFFFFFFFFL);
      }
    }
    if (o.echoAdapter() && adapterLength > 0) {
      w.tag(5, WireReader.LEN);
      w.varint(adapterLength);
      w.bytes(strings, adapterOffset, adapterLength);
    }
    readPos = 0;
  }

  // ---- InputStream / Drainable / KnownLength over the encoded response

  /** Called once the response bytes were handed to the transport. */
  Runnable onDrained;

  private boolean releasedAfterRead;

  private void consumed() {
    if (readPos >= writer.position() && !releasedAfterRead) {
      releasedAfterRead = true;
      final Runnable done = onDrained;
      if (done != null) {
        done.run();
      }
    }
  }

  /** Arms the release-on-consumption of the encoded response. */
  void armRelease() {
    releasedAfterRead = false;
  }

  @Override
  public int drainTo(final OutputStream target) throws IOException {
    final int n = writer.position() - readPos;
    target.write(writer.array(), readPos, n);
    readPos = writer.position();
    consumed();
    return n;
  }

  @Override
  public int available() {
    return writer.position() - readPos;
  }

  @Override
  public int read() {
    if (readPos >= writer.position()) {
      consumed();
      return -1;
    }
    final int b = writer.array()[readPos++] & 0xFF;
    consumed();
    return b;
  }

  @Override
  public int read(final byte[] b, final int off, final int len) {
    final int avail = writer.position() - readPos;
    if (avail <= 0) {
      consumed();
      return -1;
    }
    final int n = Math.min(len, avail);
    System.arraycopy(writer.array(), readPos, b, off, n);
    readPos += n;
    consumed();
    return n;
  }
}
