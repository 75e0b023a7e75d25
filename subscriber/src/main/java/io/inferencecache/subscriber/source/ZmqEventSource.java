package io.inferencecache.subscriber.source;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.EventBatchDecoder;
import io.inferencecache.subscriber.decode.EventDecodeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * Subscribes to an engine's KV-event publisher and feeds decoded batches to the reporter.
 *
 * <p>A JeroMQ SUB socket connects to the endpoint and subscribes to the topic (empty = every
 * message). Each multipart message's <b>last frame</b> is the msgpack payload ({@link
 * EventBatchDecoder}); when there are three frames ({@code [topic, seq, payload]}, vLLM's shape)
 * and the second is 8 bytes, it is the big-endian sequence number fed to the {@link
 * SequenceTracker}. Decoded batches, each with the discontinuity detected on its arrival, go to a
 * bounded queue (capacity {@link SubscriberConfig#QUEUE_CAPACITY} in production); when it is full
 * the receive thread waits, and ZMQ's own high-water mark then drops messages, which show up as a
 * sequence gap. An undecodable batch is logged and counted and the source keeps running (its
 * sequence still counts as received, so it is not a gap). A socket error closes the socket and
 * reconnects after the backoff (1 s by default). Messages larger than {@value #MAX_MESSAGE_BYTES}
 * bytes are refused by the socket.
 *
 * <p>A connection whose ZMTP handshake has not completed within {@link #HANDSHAKE_TIMEOUT} is torn
 * down and redialled by JeroMQ. JeroMQ 0.6.0 sometimes leaves a freshly connected socket without
 * ever sending its greeting (zeromq/jeromq#1022, a poller hand-off race on the connecting side);
 * the publisher then never sees the subscription and drops every event. Its default handshake
 * timeout is 30 s; an engine's publisher on the same pod or node answers in milliseconds, so the
 * stall is cut to a few seconds instead.
 *
 * <p>{@link #connected()} follows the socket's own events (a JeroMQ event hook): true once a ZMTP
 * handshake with the engine completed, false again when that connection drops or the socket is
 * closed. An {@code inproc://} endpoint has no handshake; it counts as connected while the socket
 * is open.
 *
 * <p>Threading: runs on its own daemon thread between {@link #start()} and {@link #close()}; the
 * counters and {@link #connected()} may be read from any thread.
 */
public final class ZmqEventSource implements AutoCloseable {
  /** Default reconnect backoff. */
  public static final Duration RECONNECT_BACKOFF_DEFAULT = Duration.ofSeconds(1);

  /** Largest message the SUB socket accepts. */
  public static final long MAX_MESSAGE_BYTES = 64L << 20;

  /** A connection that has not finished its ZMTP handshake by then is redialled. */
  public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(2);

  private static final int POLL_MILLIS = 100;
  private static final Logger LOG = LoggerFactory.getLogger(ZmqEventSource.class);

  private final String endpoint;
  private final byte[] topic;
  private final BlockingQueue<ReceivedBatch> out;
  private final Duration reconnectBackoff;
  private final EventBatchDecoder decoder = new EventBatchDecoder();
  private final SequenceTracker sequences = new SequenceTracker();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();

  private volatile boolean running;
  private volatile boolean connected;
  private Thread thread;

  /** A source with the default reconnect backoff. */
  public ZmqEventSource(
      final String endpoint, final String topic, final BlockingQueue<ReceivedBatch> out) {
    this(endpoint, topic, out, RECONNECT_BACKOFF_DEFAULT);
  }

  /**
   * @param endpoint ZMQ endpoint to connect to, e.g. {@code tcp://127.0.0.1:5557}
   * @param topic topic prefix to subscribe to; empty = all
   * @param out where decoded batches go
   * @param reconnectBackoff wait before reconnecting after a socket error
   */
  public ZmqEventSource(
      final String endpoint,
      final String topic,
      final BlockingQueue<ReceivedBatch> out,
      final Duration reconnectBackoff) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.topic = topic.getBytes(StandardCharsets.UTF_8);
    this.out = Objects.requireNonNull(out, "out");
    this.reconnectBackoff = Objects.requireNonNull(reconnectBackoff, "reconnectBackoff");
  }

  /** Starts the receive thread. */
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    running = true;
    thread = new Thread(this::run, "kvevent-zmq-source");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    try (ZContext context = new ZContext(1)) {
      context.setLinger(0);
      while (running) {
        ZMQ.Socket socket = null;
        try {
          socket = context.createSocket(SocketType.SUB);
          socket.setLinger(0);
          socket.setReceiveTimeOut(POLL_MILLIS);
          socket.setMaxMsgSize(MAX_MESSAGE_BYTES);
          socket.setHandshakeIvl((int) HANDSHAKE_TIMEOUT.toMillis());
          socket.setEventHook(this::onSocketEvent, ZMQ.EVENT_ALL);
          socket.connect(endpoint);
          socket.subscribe(topic);
          if (endpoint.startsWith("inproc://")) {
            connected = true;
          }
          LOG.info(
              "subscribed to engine KV events: endpoint={} topic=\"{}\"",
              endpoint,
              new String(topic, StandardCharsets.UTF_8));
          receive(socket);
        } catch (final ZMQException | IllegalArgumentException e) {
          if (!running) {
            break;
          }
          reconnects.incrementAndGet();
          LOG.warn(
              "ZMQ subscriber error on {}; reconnecting in {} ms: {}",
              endpoint,
              reconnectBackoff.toMillis(),
              e.toString());
        } finally {
          connected = false;
          if (socket != null) {
            socket.close();
          }
        }
        if (running && stopped.await(reconnectBackoff.toMillis(), TimeUnit.MILLISECONDS)) {
          break;
        }
      }
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (final RuntimeException e) {
      LOG.error("ZMQ subscriber thread failed", e);
    }
  }

  /** Called on JeroMQ's I/O thread for every event of the SUB socket. */
  private void onSocketEvent(final ZEvent event) {
    switch (event.getEvent()) {
      case HANDSHAKE_PROTOCOL -> connected = true;
      case DISCONNECTED, CLOSED, HANDSHAKE_FAILED_NO_DETAIL, HANDSHAKE_FAILED_PROTOCOL ->
          connected = false;
      default -> {
        // connection attempts and retries say nothing about a live engine
      }
    }
  }

  /** Receives until stopped; a socket error escapes as {@link ZMQException}. */
  private void receive(final ZMQ.Socket socket) throws InterruptedException {
    final List<byte[]> frames = new ArrayList<>(3);
    while (running) {
      final byte[] first = socket.recv(0);
      if (first == null) {
        continue; // receive timeout: check running
      }
      frames.clear();
      frames.add(first);
      while (socket.hasReceiveMore()) {
        final byte[] frame = socket.recv(0);
        if (frame == null) {
          throw new ZMQException("multipart message truncated", socket.errno());
        }
        frames.add(frame);
      }
      handle(frames);
    }
  }

  private void handle(final List<byte[]> frames) throws InterruptedException {
    messages.incrementAndGet();
    SequenceTracker.Discontinuity discontinuity = null;
    if (frames.size() == 3 && frames.get(1).length == 8) {
      discontinuity = sequences.observe(Fingerprint.fromWire(frames.get(1), 0));
    }
    EventBatch batch = null;
    try {
      batch = decoder.decode(frames.get(frames.size() - 1));
      batches.incrementAndGet();
    } catch (final EventDecodeException e) {
      malformed.incrementAndGet();
      LOG.warn("dropping undecodable KV event batch: {}", e.getMessage());
    }
    if (batch == null && discontinuity == null) {
      return;
    }
    final ReceivedBatch item = new ReceivedBatch(discontinuity, batch);
    while (running) {
      if (out.offer(item, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
        return;
      }
    }
  }

  /** Stops the receive thread and closes the socket; waits up to 5 s. */
  @Override
  public void close() {
    final Thread t;
    synchronized (this) {
      t = thread;
      running = false;
    }
    stopped.countDown();
    if (t == null) {
      return;
    }
    try {
      t.join(TimeUnit.SECONDS.toMillis(5));
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      LOG.warn("ZMQ subscriber thread did not stop in time");
    }
  }

  /** Whether the receive thread is alive. */
  public boolean isRunning() {
    final Thread t = thread;
    return t != null && t.isAlive();
  }

  /**
   * Whether the socket holds a connection to the engine whose ZMTP handshake completed (the engine
   * publisher is up and has the subscription).
   */
  public boolean connected() {
    return connected && running;
  }

  /** Messages received. */
  public long messagesReceived() {
    return messages.get();
  }

  /** Batches decoded. */
  public long batchesDecoded() {
    return batches.get();
  }

  /** Batches dropped as undecodable. */
  public long malformedBatches() {
    return malformed.get();
  }

  /** Socket errors that led to a reconnect. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Sequence gaps detected. */
  public long gaps() {
    return sequences.gaps();
  }

  /** Engine restarts detected. */
  public long restarts() {
    return sequences.restarts();
  }
}
