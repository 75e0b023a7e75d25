package io.inferencecache.controlplane.server.core;

import io.dropwizard.lifecycle.Managed;
import io.inferencecache.controlplane.server.config.ReplicationSettings;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamPublisher;
import io.inferencecache.replication.StreamReader;
import io.inferencecache.service.ingest.IngestForwarder;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.replication.ReplicatedIngest;
import io.inferencecache.service.replication.StreamForwarder;
import io.inferencecache.service.streams.IndexChangeFeed;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in the shared view ({@code replication.*}): a connection to the broker (made
 * in the background, retried forever), the {@link StreamForwarder} the gRPC service sends direct
 * ReportCacheState / PublishEvent content to, and the stream reader that applies the whole stream
 * to the index through {@link ReplicatedIngest}. Two Dropwizard lifecycles: this one (connection
 * and forwarder) starts before the gRPC server, {@link #reader()} after it (it applies with the
 * service's ingest rules), so stopping ends the reader first and the connection after gRPC.
 */
public final class ReplicationLifecycle implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationLifecycle.class);

  private final ReplicationSettings settings;
  private final Supplier<CacheIndex> index;
  private volatile Supplier<IngestRules> rules = () -> null;
  private final IndexChangeFeed feed;
  private final Reader reader = new Reader();
  private volatile ReplicationStream stream;
  private volatile StreamForwarder forwarder;
  private volatile ReplicatedIngest ingest;
  private volatile StreamReader streamReader;
  private volatile long readerStartedNanos;
  private volatile boolean timeoutLogged;

  public ReplicationLifecycle(
      final ReplicationSettings settings,
      final Supplier<CacheIndex> index,
      final IndexChangeFeed feed) {
    this.settings = settings;
    this.index = index;
    this.feed = feed;
  }

  /**
   * The gRPC service's ingest rules, read when the reader starts (so both paths count drops in one
   * place); a supplier returning null gives the reader its own rules. Set before start.
   */
  public void rules(final Supplier<IngestRules> serviceRules) {
    this.rules = serviceRules;
  }

  @Override
  public void start() {
    final ReplicationStream s =
        ReplicationStream.connect(
            settings.toStreamSettings(), "serve-" + ProcessHandle.current().pid());
    stream = s;
    forwarder = new StreamForwarder(new StreamPublisher(s), s.name(), System::nanoTime);
  }

  @Override
  public void stop() {
    final ReplicationStream s = stream;
    if (s != null) {
      s.close();
    }
  }

  /** Where the gRPC service forwards direct ingest; null before {@link #start()}. */
  public IngestForwarder forwarder() {
    return forwarder;
  }

  /** The lifecycle of the stream reader, to register after the gRPC server. */
  public Managed reader() {
    return reader;
  }

  /**
   * Whether {@code /readyz} may say ready: the reader applied what the stream held when it started,
   * or {@code replication.catchUpTimeout} has passed since the reader started (logged once).
   */
  public boolean caughtUp() {
    final StreamReader r = streamReader;
    if (r == null) {
      return false;
    }
    if (r.caughtUp()) {
      return true;
    }
    if (System.nanoTime() - readerStartedNanos >= settings.getCatchUpTimeout().toNanoseconds()) {
      if (!timeoutLogged) {
        timeoutLogged = true;
        LOG.warn(
            "event=replication_catch_up_timeout stream={} applied_sequence={}: ready with what is"
                + " applied; the reader goes on",
            settings.getStream(),
            index.get().appliedSequence());
      }
      return true;
    }
    return false;
  }

  /** The applying side, for metrics; null before the reader starts. */
  public ReplicatedIngest ingest() {
    return ingest;
  }

  /** The forwarding side, for metrics; null before {@link #start()}. */
  public StreamForwarder forwarding() {
    return forwarder;
  }

  /** Whether the broker connection is up. */
  public boolean connected() {
    final ReplicationStream s = stream;
    return s != null && s.connected();
  }

  private final class Reader implements Managed {
    @Override
    public void start() {
      final CacheIndex idx = index.get();
      final IngestRules shared = rules.get();
      final ReplicatedIngest applying =
          new ReplicatedIngest(
              idx,
              shared != null ? shared : new IngestRules(System::nanoTime),
              feed,
              System::currentTimeMillis,
              System::nanoTime);
      ingest = applying;
      final StreamReader r = new StreamReader(stream, idx::appliedSequence, applying);
      readerStartedNanos = System.nanoTime();
      streamReader = r;
      r.start();
    }

    @Override
    public void stop() {
      final StreamReader r = streamReader;
      if (r != null) {
        r.close();
      }
    }
  }
}
