package io.inferencecache.controlplane.server.probe;

/**
 * Stage C of a probe: a put/get cycle against the backend's T2 tier. Upstream wires none, so the
 * stage is {@code skipped}; a deployment that has one plugs it into {@link Prober}.
 */
public interface T2Prober {
  /**
   * Stores {@code payload} under {@code key} and reads it back.
   *
   * @throws Exception whose message starts with {@code put failed: } or {@code get failed: }
   */
  void putGet(String backend, String model, byte[] key, byte[] payload) throws Exception;
}
