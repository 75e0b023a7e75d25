package io.inferencecache.subscriber.sink;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import java.util.concurrent.CompletableFuture;
import org.agrona.collections.LongHashSet;

/**
 * One {@code ReportCacheState} call of the sender thread, and what went out on it: the count of
 * updates and entries not yet confirmed, and the 8-byte hashes (a hash of another length makes
 * every eviction conflict), so that an eviction that could overtake its own report is known.
 */
final class ReportStream implements ClientResponseObserver<CacheStateUpdate, Ack> {
  /** Completed by the server's Ack, or exceptionally by the call's failure. */
  final CompletableFuture<Ack> done = new CompletableFuture<>();

  /** Notified when the call becomes ready or fails. */
  final Object readyMonitor = new Object();

  volatile ClientCallStreamObserver<CacheStateUpdate> requests;
  private final LongHashSet hashes = new LongHashSet();
  private boolean otherHashes; // a hash that is not 8 bytes went out: any eviction conflicts
  long updates;
  long entries;

  @Override
  public void beforeStart(final ClientCallStreamObserver<CacheStateUpdate> call) {
    requests = call;
    call.setOnReadyHandler(
        () -> {
          synchronized (readyMonitor) {
            readyMonitor.notifyAll();
          }
        });
  }

  @Override
  public void onNext(final Ack ack) {
    done.complete(ack);
  }

  @Override
  public void onError(final Throwable t) {
    done.completeExceptionally(t);
    synchronized (readyMonitor) {
      readyMonitor.notifyAll();
    }
  }

  @Override
  public void onCompleted() {
    done.complete(Ack.getDefaultInstance());
  }

  /** Whether an eviction of {@code hash} could overtake a report on this stream. */
  boolean conflicts(final byte[] hash) {
    return otherHashes || (hash.length == 8 ? hashes.contains(toLong(hash)) : updates > 0);
  }

  /** Records a hash sent on this stream. */
  void remember(final byte[] hash) {
    if (hash.length == 8) {
      hashes.add(toLong(hash));
    } else {
      otherHashes = true;
    }
  }

  private static long toLong(final byte[] b) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[i] & 0xFF);
    }
    return v;
  }
}
