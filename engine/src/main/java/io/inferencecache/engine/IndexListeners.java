package io.inferencecache.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Helpers for {@link IndexListener}s. */
public final class IndexListeners {
  private static final Logger LOG = LoggerFactory.getLogger(IndexListeners.class);

  /** A failing delegate is logged on its first failure and every this many after. */
  private static final long LOG_EVERY = 1024;

  private IndexListeners() {}

  /**
   * One listener that forwards every call to each of {@code listeners} in order (for example a
   * metrics listener and a change feed). {@link IndexListener#wantsChanges()} is true when any
   * delegate wants changes, and change hooks reach only the delegates that want them. A delegate
   * that throws is logged (first failure, then every 1024th) and does not stop the others or the
   * index. No listener gives {@link IndexListener#NOOP}; one gives itself.
   */
  public static IndexListener compose(final IndexListener... listeners) {
    final List<IndexListener> all = new ArrayList<>(listeners.length);
    for (IndexListener l : listeners) {
      if (Objects.requireNonNull(l, "listener") != IndexListener.NOOP) {
        all.add(l);
      }
    }
    if (all.isEmpty()) {
      return IndexListener.NOOP;
    }
    if (all.size() == 1) {
      return all.get(0);
    }
    return new Composite(all.toArray(new IndexListener[0]));
  }

  private static final class Composite implements IndexListener {
    private final IndexListener[] delegates;
    private long failures; // writer thread only

    Composite(final IndexListener[] delegates) {
      this.delegates = delegates;
    }

    private void failed(final IndexListener l, final RuntimeException e) {
      failures++;
      if (failures == 1 || failures % LOG_EVERY == 0) {
        LOG.warn(
            "event=index_listener_failed listener={} failures={} reason=\"{}\"",
            l.getClass().getName(),
            failures,
            String.valueOf(e),
            e);
      }
    }

    @Override
    public void onIndexEntries(final String model, final long distinctKeys) {
      for (IndexListener l : delegates) {
        try {
          l.onIndexEntries(model, distinctKeys);
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public void onEvictions(final String algorithm, final String reason, final long count) {
      for (IndexListener l : delegates) {
        try {
          l.onEvictions(algorithm, reason, count);
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public void onTenantEvictions(final String tenant, final String reason, final long count) {
      for (IndexListener l : delegates) {
        try {
          l.onTenantEvictions(tenant, reason, count);
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public boolean wantsChanges() {
      for (IndexListener l : delegates) {
        if (l.wantsChanges()) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void onPrefixStored(
        final String tenant,
        final String model,
        final String replica,
        final String scheme,
        final String adapter,
        final byte[] hash,
        final int tokenCount,
        final long timestampNanos) {
      for (IndexListener l : delegates) {
        try {
          if (l.wantsChanges()) {
            l.onPrefixStored(
                tenant, model, replica, scheme, adapter, hash, tokenCount, timestampNanos);
          }
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public void onPrefixRemoved(
        final String tenant,
        final String model,
        final String replica,
        final String scheme,
        final String adapter,
        final byte[] hash,
        final String reason,
        final long timestampNanos) {
      for (IndexListener l : delegates) {
        try {
          if (l.wantsChanges()) {
            l.onPrefixRemoved(
                tenant, model, replica, scheme, adapter, hash, reason, timestampNanos);
          }
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public void onReplicaUpdated(
        final String tenant, final String model, final String replica, final long timestampNanos) {
      for (IndexListener l : delegates) {
        try {
          if (l.wantsChanges()) {
            l.onReplicaUpdated(tenant, model, replica, timestampNanos);
          }
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }

    @Override
    public void onAllCleared(
        final String tenant, final String model, final String replica, final long timestampNanos) {
      for (IndexListener l : delegates) {
        try {
          if (l.wantsChanges()) {
            l.onAllCleared(tenant, model, replica, timestampNanos);
          }
        } catch (RuntimeException e) {
          failed(l, e);
        }
      }
    }
  }
}
