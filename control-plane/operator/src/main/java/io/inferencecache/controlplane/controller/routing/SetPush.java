package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push of one whole set ({@code /pd-topologies} or {@code /prompt-templates}) beside the policy
 * push, with its discipline: leader only, the body built and POSTed under one lock (an older body
 * never lands after a newer one), the policy-audience token re-read each time, every push interval
 * and on every change. A change whose body equals the last one the server accepted sends nothing (a
 * pod event that moves no member); the periodic push always sends, so a restarted server is
 * refilled within one interval.
 *
 * <p>A server that answers 404 for the path (an older or upstream server) is logged once; the
 * periodic push then leaves it alone for {@link #RECHECK} (a change still tries, quietly), and the
 * first accepted body after that is logged too.
 */
public final class SetPush {
  private static final Logger LOG = LoggerFactory.getLogger(SetPush.class);

  /** How long the periodic push leaves a server that answered 404 alone. */
  public static final Duration RECHECK = Duration.ofMinutes(10);

  /** The outcome of one push. */
  public enum Outcome {
    /** The server accepted the body. */
    PUSHED,
    /** Not the leader, or a cache not listed yet: nothing was sent. */
    SKIPPED,
    /** A change whose body the server already holds: nothing was sent. */
    UNCHANGED,
    /** The server does not know the path (404), now or within {@link #RECHECK}. */
    UNSUPPORTED
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final String what;
  private final Supplier<String> body;
  private final ServerBridge bridge;
  private final String url;
  private final Path tokenFile;
  private final BooleanSupplier leader;
  private final Clock clock;
  private String accepted;
  private Instant unsupportedSince;

  /**
   * @param what the set's name in logs, e.g. {@code PDTopology}
   * @param body the full body, or null while a cache cannot list
   * @param url where to POST it
   */
  public SetPush(
      final String what,
      final Supplier<String> body,
      final ServerBridge bridge,
      final String url,
      final Path tokenFile,
      final BooleanSupplier leader,
      final Clock clock) {
    this.what = what;
    this.body = body;
    this.bridge = bridge;
    this.url = url;
    this.tokenFile = tokenFile;
    this.leader = leader;
    this.clock = clock;
  }

  /**
   * {@code path} beside the policy URL: {@code http://server:8081/policy} and {@code pd-topologies}
   * give {@code http://server:8081/pd-topologies}.
   */
  public static String sibling(final String policyUrl, final String path) {
    return URI.create(policyUrl).resolve(path).toString();
  }

  /** Where this push sends. */
  public String url() {
    return url;
  }

  /**
   * Pushes once for a change.
   *
   * @throws IOException on a non-2xx answer other than 404 ({@link ServerBridge.BridgeException})
   *     or a transport failure
   */
  public Outcome onChange() throws IOException, InterruptedException {
    return push(true);
  }

  /** The periodic push: a failure is only logged. */
  public void tick() {
    try {
      push(false);
    } catch (IOException e) {
      LOG.warn("periodic {} push to {} failed: {}", what, url, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Outcome push(final boolean change) throws IOException, InterruptedException {
    lock.lockInterruptibly();
    try {
      if (!leader.getAsBoolean()) {
        return Outcome.SKIPPED;
      }
      final Instant now = clock.instant();
      if (!change && unsupportedSince != null && now.isBefore(unsupportedSince.plus(RECHECK))) {
        return Outcome.UNSUPPORTED;
      }
      final String b = body.get();
      if (b == null) {
        LOG.info("{} push skipped: the cache has not listed yet", what);
        return Outcome.SKIPPED;
      }
      if (change && b.equals(accepted)) {
        return Outcome.UNCHANGED;
      }
      try {
        bridge.postPolicy(url, b, tokenFile);
      } catch (ServerBridge.BridgeException e) {
        if (e.status() != 404) {
          throw e;
        }
        if (unsupportedSince == null) {
          LOG.warn(
              "{} answered 404: the server does not take {} objects (an older or upstream"
                  + " server); the periodic push retries every {}",
              url,
              what,
              RECHECK);
        }
        unsupportedSince = now;
        accepted = null;
        return Outcome.UNSUPPORTED;
      }
      if (unsupportedSince != null) {
        LOG.info("{} now takes {} objects", url, what);
        unsupportedSince = null;
      }
      accepted = b;
      LOG.debug("{} pushed: {}", what, b);
      return Outcome.PUSHED;
    } finally {
      lock.unlock();
    }
  }
}
