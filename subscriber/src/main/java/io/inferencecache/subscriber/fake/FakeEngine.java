package io.inferencecache.subscriber.fake;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatchDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A test stand-in for a vLLM engine's KV-event publisher (upstream {@code kvevent-fake-engine}).
 * Not for production.
 *
 * <p>Binds a PUB-compatible socket (XPUB, so {@link #awaitSubscriber} can wait out the PUB/SUB
 * slow-joiner race) and sends vLLM-shaped messages {@code [topic, seq (8-byte big-endian), msgpack
 * payload]}. The stored batch is {@code [ts, [BlockStored tuples]]}: {@code numBlocks} full blocks
 * of the token sequence {@code startToken, startToken+1, ...} split across {@code events} events,
 * engine block hashes {@code 0xE000 + i} as integers, each event after the first chained to the
 * previous one through {@code parent_block_hash}; {@code token_ids} nil when omitted, {@code
 * lora_id} nil unless set. {@link #expectations()} are the prefix hashes and token counts a
 * subscriber must derive. It can also send {@code BlockRemoved}, {@code AllBlocksCleared} and raw
 * payloads, skip sequence numbers (a gap) and restart them at 0.
 *
 * <p>Not thread-safe: use from one thread (JeroMQ sockets are single-threaded).
 */
public final class FakeEngine implements AutoCloseable {
  /** Engine block hash of global block 0. */
  public static final long FAKE_HASH_BASE = 0xE000L;

  /** Default bind endpoint (loopback; upstream binds every interface). */
  public static final String ENDPOINT_DEFAULT = "tcp://127.0.0.1:5557";

  private static final Logger LOG = LoggerFactory.getLogger(FakeEngine.class);
  private static final int MAX_TOTAL_TOKENS = 1 << 24;

  /**
   * What a subscriber must derive for one block.
   *
   * @param index the global block index
   * @param prefixHash the content fingerprint
   * @param tokenCount the cumulative token count
   */
  public record Expectation(int index, long prefixHash, int tokenCount) {
    /** The wire form of the hash. */
    public byte[] wire() {
      return Fingerprint.toWire(prefixHash);
    }

    /** The wire form as lower-case hex. */
    public String hex() {
      return HexFormat.of().formatHex(wire());
    }
  }

  private final String topic;
  private final int blockSize;
  private final int numBlocks;
  private final int events;
  private final int startToken;
  private final Duration interval;
  private final boolean omitTokenIds;
  private final OptionalLong loraId;
  private final double timestampSeconds;
  private final ZContext context;
  private final ZMQ.Socket socket;
  private final String endpoint;
  private final byte[] storedPayload;
  private long sequence;

  private FakeEngine(final Builder b) {
    this.topic = b.topic;
    this.blockSize = b.blockSize;
    this.numBlocks = b.numBlocks;
    this.events = b.events;
    this.startToken = b.startToken;
    this.interval = b.interval;
    this.omitTokenIds = b.omitTokenIds;
    this.loraId = b.loraId;
    this.timestampSeconds = b.timestampSeconds;
    this.storedPayload = storedBatch();
    this.context = new ZContext(1);
    try {
      socket = context.createSocket(SocketType.XPUB);
      socket.setLinger(0);
      socket.bind(b.endpoint);
      endpoint = socket.getLastEndpoint();
    } catch (final RuntimeException e) {
      context.close();
      throw e;
    }
  }

  /** A builder with upstream's defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Engine block hash of global block {@code i}. */
  public static long fakeBlockHash(final int i) {
    return FAKE_HASH_BASE + i;
  }

  /** The bound endpoint, with the real port when bound to {@code :*}. */
  public String endpoint() {
    return endpoint;
  }

  /**
   * Waits for a subscriber's subscription message.
   *
   * @return whether one arrived within {@code timeout}
   */
  public boolean awaitSubscriber(final Duration timeout) {
    socket.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    final byte[] subscription = socket.recv(0);
    return subscription != null && subscription.length > 0 && subscription[0] == 1;
  }

  /** The token sequence published. */
  public int[] tokens() {
    final int[] tokens = new int[numBlocks * blockSize];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = startToken + i;
    }
    return tokens;
  }

  /** The prefix hash and cumulative token count of every published block. */
  public List<Expectation> expectations() {
    final long[] hashes = Fingerprint.prefixHashes(tokens(), blockSize);
    final List<Expectation> out = new ArrayList<>(hashes.length);
    for (int i = 0; i < hashes.length; i++) {
      out.add(new Expectation(i, hashes[i], (i + 1) * blockSize));
    }
    return out;
  }

  /** The stored batch payload. */
  public byte[] storedPayload() {
    return storedPayload.clone();
  }

  /** Sends the stored batch. */
  public void publishStored() {
    publishPayload(storedPayload);
  }

  /** Sends {@code [ts, [["BlockRemoved", [hashes...]]]]}. */
  public void publishBlockRemoved(final long... engineHashes) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(timestampSeconds).packArrayHeader(1);
      p.packArrayHeader(2).packString(EventBatchDecoder.BLOCK_REMOVED);
      p.packArrayHeader(engineHashes.length);
      for (final long h : engineHashes) {
        p.packLong(h);
      }
      publishPayload(p.toByteArray());
    } catch (final IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Sends {@code [ts, [["AllBlocksCleared"]]]}. */
  public void publishAllBlocksCleared() {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(timestampSeconds).packArrayHeader(1);
      p.packArrayHeader(1).packString(EventBatchDecoder.ALL_BLOCKS_CLEARED);
      publishPayload(p.toByteArray());
    } catch (final IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Sends {@code [topic, seq, payload]} and advances the sequence. */
  public void publishPayload(final byte[] payload) {
    socket.sendMore(topic.getBytes(StandardCharsets.UTF_8));
    socket.sendMore(Fingerprint.toWire(sequence));
    socket.send(payload, 0);
    sequence++;
  }

  /** Skips {@code missed} sequence numbers: the next message reveals a gap. */
  public void injectGap(final long missed) {
    sequence += missed;
  }

  /** Restarts the sequence at 0, as a restarted engine does. */
  public void simulateRestart() {
    sequence = 0;
  }

  /** The sequence number of the next message. */
  public long nextSequence() {
    return sequence;
  }

  /**
   * Logs the expectations, then republishes the stored batch every interval while {@code keepGoing}
   * holds (the CLI loop; the republish covers late subscribers).
   */
  public void run(final BooleanSupplier keepGoing) throws InterruptedException {
    if (omitTokenIds) {
      LOG.info("EXPECT no index entries (token_ids omitted; the subscriber must warn)");
    } else {
      for (final Expectation e : expectations()) {
        LOG.info("EXPECT prefix_hash[{}]={} token_count={}", e.index(), e.hex(), e.tokenCount());
      }
    }
    LOG.info(
        "publishing {} BlockStored event(s) per batch on {} topic=\"{}\" ({} block(s)) every {}",
        events,
        endpoint,
        topic,
        numBlocks,
        interval);
    while (keepGoing.getAsBoolean()) {
      publishStored();
      Thread.sleep(interval.toMillis());
    }
  }

  private byte[] storedBatch() {
    final int[] tokens = tokens();
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(timestampSeconds).packArrayHeader(events);
      final int base = numBlocks / events;
      final int remainder = numBlocks % events;
      int lo = 0;
      for (int e = 0; e < events; e++) {
        final int n = base + (e < remainder ? 1 : 0);
        final int hi = lo + n;
        p.packArrayHeader(6).packString(EventBatchDecoder.BLOCK_STORED);
        p.packArrayHeader(n);
        for (int b = lo; b < hi; b++) {
          p.packLong(fakeBlockHash(b));
        }
        if (lo > 0) {
          p.packLong(fakeBlockHash(lo - 1));
        } else {
          p.packNil();
        }
        if (omitTokenIds) {
          p.packNil();
        } else {
          p.packArrayHeader(n * blockSize);
          for (int t = lo * blockSize; t < hi * blockSize; t++) {
            p.packLong(tokens[t] & 0xFFFF_FFFFL);
          }
        }
        p.packInt(blockSize);
        if (loraId.isPresent()) {
          p.packLong(loraId.getAsLong());
        } else {
          p.packNil();
        }
        lo = hi;
      }
      return p.toByteArray();
    } catch (final IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Unbinds and closes the socket. */
  @Override
  public void close() {
    context.close();
  }

  /** Options with upstream's defaults; {@link #bind()} validates them. Not thread-safe. */
  public static final class Builder {
    private String endpoint = ENDPOINT_DEFAULT;
    private String topic = SubscriberConfig.TOPIC_DEFAULT;
    private int blockSize = 128;
    private int numBlocks = 1;
    private int events = 1;
    private int startToken;
    private Duration interval = Duration.ofMillis(500);
    private boolean omitTokenIds;
    private OptionalLong loraId = OptionalLong.empty();
    private double timestampSeconds;

    private Builder() {}

    /** Bind endpoint; {@code tcp://127.0.0.1:*} picks a free port. */
    public Builder endpoint(final String v) {
      endpoint = Objects.requireNonNull(v);
      return this;
    }

    /** Topic frame. */
    public Builder topic(final String v) {
      topic = Objects.requireNonNull(v);
      return this;
    }

    /** Tokens per block (default 128). */
    public Builder blockSize(final int v) {
      blockSize = v;
      return this;
    }

    /** Full blocks in the stored batch (default 1). */
    public Builder numBlocks(final int v) {
      numBlocks = v;
      return this;
    }

    /** BlockStored events the blocks are split across, each chained to the previous (default 1). */
    public Builder events(final int v) {
      events = v;
      return this;
    }

    /** First token id (default 0). */
    public Builder startToken(final int v) {
      startToken = v;
      return this;
    }

    /** Republish interval of {@link #run} (default 500 ms). */
    public Builder interval(final Duration v) {
      interval = Objects.requireNonNull(v);
      return this;
    }

    /** Send {@code token_ids} as nil. */
    public Builder omitTokenIds(final boolean v) {
      omitTokenIds = v;
      return this;
    }

    /** The {@code lora_id} of every BlockStored (default nil). */
    public Builder loraId(final long v) {
      loraId = OptionalLong.of(v);
      return this;
    }

    /** The batch timestamp, Unix seconds (default 0: "server now"). */
    public Builder timestampSeconds(final double v) {
      timestampSeconds = v;
      return this;
    }

    /**
     * Validates the options and binds.
     *
     * @throws IllegalArgumentException on invalid options
     */
    public FakeEngine bind() {
      if (blockSize <= 0 || numBlocks <= 0) {
        throw new IllegalArgumentException(
            "block size and block count must be positive, got " + blockSize + ", " + numBlocks);
      }
      if (numBlocks > MAX_TOTAL_TOKENS / blockSize) {
        throw new IllegalArgumentException(
            "block size × block count must not exceed " + MAX_TOTAL_TOKENS + " tokens");
      }
      if (startToken < 0) {
        throw new IllegalArgumentException("start token must be non-negative, got " + startToken);
      }
      if (events < 1 || events > numBlocks) {
        throw new IllegalArgumentException(
            "events must be in [1, " + numBlocks + "] (the block count), got " + events);
      }
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("interval must be positive, got " + interval);
      }
      return new FakeEngine(this);
    }
  }
}
