package io.inferencecache.replication;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the broker for the replication stream. The connection is made in the background
 * and retried forever (a process starts whether or not the broker is up; {@link #connected()} says
 * which); {@link #ensureStream()} creates the stream when it is missing: file storage, subjects
 * {@code <stream>.>}, rollup headers allowed ({@code allow_rollup_hdrs}, JetStream 2.6+), a {@value
 * #DUPLICATE_WINDOW_SECONDS} s duplicate window for {@code Nats-Msg-Id}. Thread-safe.
 */
public final class ReplicationStream implements AutoCloseable {
  /** Window in which the broker drops a message whose {@code Nats-Msg-Id} it has already stored. */
  public static final int DUPLICATE_WINDOW_SECONDS = 120;

  private static final Logger LOG = LoggerFactory.getLogger(ReplicationStream.class);

  private final StreamSettings settings;
  private final Thread connector;
  private volatile Connection connection;
  private volatile boolean up;
  private boolean closed; // guarded by this
  private final List<Runnable> onConnected = new CopyOnWriteArrayList<>();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong heartbeatAlarms = new AtomicLong();
  private final AtomicLong slowConsumers = new AtomicLong();

  private ReplicationStream(final StreamSettings settings, final String clientName) {
    this.settings = settings;
    final Options options =
        Options.builder()
            .servers(settings.natsUrl().split(","))
            .connectionName(clientName)
            .maxReconnects(-1)
            .reconnectWait(Duration.ofMillis(250))
            .connectionTimeout(Duration.ofSeconds(2))
            .connectionListener(this::connectionEvent)
            .errorListener(new Alarms())
            .build();
    // jnats' connect blocks until the first connection: make it on a thread of its own, so that a
    // process whose broker is down starts anyway (connected() false, publishes refused at once).
    this.connector =
        new Thread(
            () -> {
              try {
                adopt(Nats.connectReconnectOnConnect(options));
              } catch (IOException e) {
                LOG.error(
                    "event=replication_connect_failed stream={} url={}: {}",
                    name(),
                    settings.natsUrl(),
                    e.toString());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "replication-connect-" + settings.stream());
    connector.setDaemon(true);
    connector.start();
  }

  /** Keeps {@code c} as this stream's connection, or closes it when the stream was closed first. */
  private void adopt(final Connection c) {
    synchronized (this) {
      if (!closed) {
        if (connection == null) {
          connection = c;
        }
        return;
      }
    }
    closeQuietly(c);
  }

  private static void closeQuietly(final Connection c) {
    try {
      c.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Connects to the broker of {@code settings} in the background: returns at once, whether or not
   * the broker is up.
   *
   * @param clientName the connection name the broker shows ({@code connz})
   */
  public static ReplicationStream connect(final StreamSettings settings, final String clientName) {
    Objects.requireNonNull(settings, "settings");
    final String problem = settings.problem();
    if (problem != null || !settings.enabled()) {
      throw new IllegalArgumentException(problem != null ? problem : "replication is off");
    }
    return new ReplicationStream(settings, clientName);
  }

  private void connectionEvent(final Connection c, final ConnectionListener.Events event) {
    switch (event) {
      case CONNECTED, RECONNECTED -> {
        adopt(c);
        up = true;
        connections.incrementAndGet();
        LOG.info(
            "event=replication_broker_connected url={} stream={}", c.getConnectedUrl(), name());
        for (Runnable r : onConnected) {
          r.run();
        }
      }
      case DISCONNECTED -> {
        // once per outage: the client reports every failed reconnection attempt too
        if (up) {
          up = false;
          LOG.warn("event=replication_broker_disconnected stream={}", name());
        } else {
          LOG.debug("event=replication_reconnect_failed stream={}", name());
        }
      }
      default -> {
        // lame duck, discovered servers, resubscribed, closed: nothing to do
      }
    }
  }

  /**
   * The client's alarms, logged and counted: a heartbeat alarm is a consumer that got neither a
   * message nor the broker's idle heartbeat for three heartbeat periods (the ordered consumer is
   * then recreated by the client); a slow consumer is a subscription whose pending buffer
   * overflowed.
   */
  private final class Alarms implements ErrorListener {
    @Override
    public void heartbeatAlarm(
        final Connection conn,
        final JetStreamSubscription sub,
        final long lastStreamSequence,
        final long lastConsumerSequence) {
      heartbeatAlarms.incrementAndGet();
      LOG.warn(
          "event=replication_heartbeat_alarm stream={} last_stream_sequence={}: consumer recreated",
          name(),
          lastStreamSequence);
    }

    @Override
    public void slowConsumerDetected(final Connection conn, final Consumer consumer) {
      slowConsumers.incrementAndGet();
      LOG.warn("event=replication_slow_consumer stream={}", name());
    }
  }

  /** Heartbeat alarms of this connection's consumers so far (see {@link Alarms}). */
  public long heartbeatAlarms() {
    return heartbeatAlarms.get();
  }

  /** Slow-consumer reports of this connection so far. */
  public long slowConsumers() {
    return slowConsumers.get();
  }

  /**
   * Runs {@code r} on the client's thread after every (re)connection; and now, on the caller's
   * thread, when already connected.
   */
  public void whenConnected(final Runnable r) {
    onConnected.add(r);
    if (connected()) {
      r.run();
    }
  }

  /**
   * How many times the connection came up (first connection and every reconnection) since this
   * stream was created.
   */
  long connections() {
    return connections.get();
  }

  /** Whether the connection is up now. */
  public boolean connected() {
    final Connection c = connection;
    return c != null && c.getStatus() == Connection.Status.CONNECTED;
  }

  /** The stream name. */
  public String name() {
    return settings.stream();
  }

  /** The settings. */
  public StreamSettings settings() {
    return settings;
  }

  /**
   * The underlying connection (publisher and reader share it).
   *
   * @throws StreamUnavailableException before the first connection
   */
  Connection connection() {
    final Connection c = connection;
    if (c == null) {
      throw new StreamUnavailableException(
          "broker not connected yet (stream " + name() + ", " + settings.natsUrl() + ")");
    }
    return c;
  }

  /** JetStream options bounding each request by the publish timeout. */
  JetStreamOptions jetStreamOptions() {
    return JetStreamOptions.builder().requestTimeout(settings.publishTimeout()).build();
  }

  /**
   * Creates the stream when it is missing; refuses (IllegalStateException naming the stream) one
   * that exists without rollup allowed, since full states could not compact it.
   *
   * @return the stream's info
   * @throws IOException when the broker cannot be reached
   */
  public StreamInfo ensureStream() throws IOException {
    final Connection c = connection;
    if (c == null) {
      throw new IOException("broker not connected yet (stream " + name() + ")");
    }
    try {
      final JetStreamManagement jsm = c.jetStreamManagement(jetStreamOptions());
      StreamInfo info;
      try {
        info = jsm.getStreamInfo(name());
      } catch (JetStreamApiException missing) {
        info =
            jsm.addStream(
                StreamConfiguration.builder()
                    .name(name())
                    .subjects(settings.subjects())
                    .storageType(StorageType.File)
                    .discardPolicy(DiscardPolicy.Old)
                    .allowRollup(true)
                    .duplicateWindow(Duration.ofSeconds(DUPLICATE_WINDOW_SECONDS))
                    .build());
        LOG.info("event=replication_stream_created stream={}", name());
      }
      if (!info.getConfiguration().getAllowRollup()) {
        throw new IllegalStateException(
            "stream " + name() + " exists without allow_rollup_hdrs: recreate it or pick another");
      }
      return info;
    } catch (JetStreamApiException e) {
      throw new IOException("cannot create stream " + name() + ": " + e.getMessage(), e);
    }
  }

  /** Closes the connection, or stops connecting when there is none yet. */
  @Override
  public void close() {
    final Connection c;
    synchronized (this) {
      closed = true;
      c = connection;
    }
    if (c != null) {
      closeQuietly(c);
    } else {
      connector.interrupt();
    }
  }
}
