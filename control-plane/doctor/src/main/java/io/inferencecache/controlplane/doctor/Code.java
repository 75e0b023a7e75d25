package io.inferencecache.controlplane.doctor;

/** Every finding code doctor emits, each with its fixed status. */
public enum Code {
  /** A Kubernetes API call failed. */
  API001(Status.FAIL),
  /** The gRPC health check failed, or the server could not be discovered. */
  SV001(Status.FAIL),
  /** The gRPC health check answered other than SERVING. */
  SV002(Status.FAIL),
  /** The gRPC health check answered SERVING. */
  SV003(Status.OK),
  /** {@code /snapshot} unreachable or answered an error. */
  SN001(Status.FAIL),
  /** {@code /snapshot} answered 200 with a body that is not JSON. */
  SN002(Status.WARN),
  /** {@code /snapshot} was called without a bearer token. */
  SN003(Status.INFO),
  /** {@code /snapshot} answered 200 with JSON. */
  SN004(Status.OK),
  /** {@code /snapshot} refused the token (401/403). */
  SN005(Status.WARN),
  /** {@code /policy} unreachable or 404. */
  PL001(Status.FAIL),
  /** {@code /policy} is served. */
  PL002(Status.OK),
  /** {@code /policy} answered an unexpected status. */
  PL003(Status.WARN),
  /** {@code /probe} unreachable or 404. */
  PB001(Status.FAIL),
  /** {@code /probe} is served. */
  PB002(Status.OK),
  /** {@code /probe} answered an unexpected status. */
  PB003(Status.WARN),
  /** A CacheBackend is not Ready. */
  CB001(Status.WARN),
  /** A CacheBackend's selector matches no engine pod. */
  CB002(Status.WARN),
  /** A CacheBackend has never seen a KV event. */
  CB003(Status.WARN),
  /** A CacheBackend's last KV event is older than two minutes. */
  CB004(Status.WARN),
  /** A CacheBackend's remote store endpoint is missing or unreachable. */
  CB005(Status.WARN),
  /** A CacheBackend has no problem. */
  CB006(Status.OK),
  /** A CacheBackend's functional probe is not passing. */
  CB007(Status.WARN),
  /** An engine pod matched by a backend carries no sign of injection. */
  EP001(Status.WARN),
  /** An engine pod was injected by its backend. */
  EP002(Status.OK),
  /** An engine pod is matched by more than one backend. */
  EP003(Status.WARN),
  /** A pod was reported as matching no CacheBackend in the last 24 hours. */
  OP001(Status.WARN),
  /** A CacheTenant is over its quota. */
  CT001(Status.WARN),
  /** A CacheTenant is within its quota. */
  CT002(Status.OK),
  /** A namespace with backends has no CachePolicy (defaults apply). */
  CP001(Status.INFO),
  /** A namespace with backends has one CachePolicy. */
  CP002(Status.OK),
  /** A namespace with backends has several CachePolicies. */
  CP003(Status.WARN);

  private final Status status;

  Code(final Status status) {
    this.status = status;
  }

  public Status status() {
    return status;
  }
}
