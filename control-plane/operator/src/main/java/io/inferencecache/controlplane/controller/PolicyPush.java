package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy push (leader only): list every CachePolicy and CacheTenant from the informer caches,
 * build the one full body and POST it, the list and the POST under one lock so that an older list
 * can never land after a newer one. The policy-audience token is re-read on every push.
 */
public final class PolicyPush {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPush.class);

  /**
   * What a cache holds; {@code null} while it cannot list (not synced, CRD missing).
   *
   * @param <T> the kind
   */
  public interface Source<T> {
    List<T> list();
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Source<CachePolicy> policies;
  private final Source<CacheTenant> tenants;
  private final ServerBridge bridge;
  private final String url;
  private final Path tokenFile;
  private final BooleanSupplier leader;

  public PolicyPush(
      final Source<CachePolicy> policies,
      final Source<CacheTenant> tenants,
      final ServerBridge bridge,
      final String url,
      final Path tokenFile,
      final BooleanSupplier leader) {
    this.policies = policies;
    this.tenants = tenants;
    this.bridge = bridge;
    this.url = url;
    this.tokenFile = tokenFile;
    this.leader = leader;
  }

  /** The outcome of one push. */
  public enum Outcome {
    /** The server accepted the body. */
    PUSHED,
    /** Not the leader, or no CachePolicy list yet: nothing was sent. */
    SKIPPED
  }

  /**
   * Pushes once.
   *
   * @throws IOException on a non-2xx answer ({@link ServerBridge.BridgeException}) or a transport
   *     failure
   */
  public Outcome push() throws IOException, InterruptedException {
    lock.lockInterruptibly();
    try {
      if (!leader.getAsBoolean()) {
        return Outcome.SKIPPED;
      }
      final List<CachePolicy> p = policies.list();
      if (p == null) {
        LOG.info("policy push skipped: the CachePolicy cache has not listed yet");
        return Outcome.SKIPPED;
      }
      final List<CacheTenant> t = tenants.list();
      final String body = PolicyBody.build(p, t == null ? List.of() : t);
      bridge.postPolicy(url, body, tokenFile);
      LOG.debug("policy pushed: {}", body);
      return Outcome.PUSHED;
    } finally {
      lock.unlock();
    }
  }

  /** The periodic push: a failure is only logged. */
  public void tick() {
    try {
      push();
    } catch (IOException e) {
      LOG.warn("periodic policy push to {} failed: {}", url, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
