package io.inferencecache.service.streams;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A client-side stream observer that records what it receives and how the stream ended; with {@code
 * manual}, it requests nothing until {@link #request} (a subscriber that does not read).
 */
final class Recorder<T> implements ClientResponseObserver<Object, T> {
  final List<T> received = new CopyOnWriteArrayList<>();
  final List<Long> receivedAtNanos = new CopyOnWriteArrayList<>();
  final CompletableFuture<Status> closed = new CompletableFuture<>();
  private final boolean manual;
  volatile ClientCallStreamObserver<Object> call;

  Recorder(final boolean manual) {
    this.manual = manual;
  }

  static <T> Recorder<T> auto() {
    return new Recorder<>(false);
  }

  static <T> Recorder<T> stalled() {
    return new Recorder<>(true);
  }

  @Override
  public void beforeStart(final ClientCallStreamObserver<Object> requestStream) {
    call = requestStream;
    if (manual) {
      requestStream.disableAutoRequestWithInitial(0);
    }
  }

  void request(final int n) {
    call.request(n);
  }

  void cancel() {
    call.cancel("test unsubscribes", null);
  }

  @Override
  public void onNext(final T value) {
    received.add(value);
    receivedAtNanos.add(System.nanoTime());
  }

  @Override
  public void onError(final Throwable t) {
    closed.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    closed.complete(Status.OK);
  }
}
