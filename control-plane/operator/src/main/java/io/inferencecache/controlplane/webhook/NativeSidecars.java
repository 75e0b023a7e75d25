package io.inferencecache.controlplane.webhook;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.VersionInfo;

/**
 * Whether the API server accepts native sidecars (an init container with {@code restartPolicy:
 * Always}, on by default from Kubernetes 1.29), which the LMCache multiprocess server is injected
 * as. An older API server refuses such a pod outright, so injecting it there would turn an advisory
 * cache into engine pods that cannot be created; the injector admits them unchanged instead.
 *
 * <p>The version is read from {@code /version} on the first injection that needs it and kept once
 * read; a failed read is not kept, so the next admission tries again (and admits its pod
 * unchanged). Thread-safe.
 */
final class NativeSidecars {
  static final int MIN_MAJOR = 1;
  static final int MIN_MINOR = 29;

  /** Reads the API server's version. */
  @FunctionalInterface
  interface VersionSource {
    VersionInfo read() throws ApiException;
  }

  /** For callers that know the cluster is new enough (unit tests of the injection itself). */
  static final NativeSidecars ASSUMED =
      new NativeSidecars(
          () -> {
            final VersionInfo v = new VersionInfo();
            v.setMajor(String.valueOf(MIN_MAJOR));
            v.setMinor(String.valueOf(MIN_MINOR));
            v.setGitVersion("v" + MIN_MAJOR + "." + MIN_MINOR + ".0");
            return v;
          });

  private final VersionSource source;
  private volatile Verdict known;

  private record Verdict(String refusal) {}

  NativeSidecars(final VersionSource source) {
    this.source = source;
  }

  /** Reads {@code client}'s API server version. */
  static NativeSidecars of(final ApiClient client) {
    final VersionApi api = new VersionApi(client);
    return new NativeSidecars(() -> api.getCode().execute());
  }

  /** Null when native sidecars can be injected, else why not (an operator-facing sentence). */
  String refusal() {
    final Verdict v = known;
    if (v != null) {
      return v.refusal();
    }
    final VersionInfo info;
    try {
      info = source.read();
    } catch (ApiException | RuntimeException e) {
      return "cannot read the API server version to check native-sidecar support (the"
          + " lmcache-mp-server needs Kubernetes "
          + MIN_MAJOR
          + "."
          + MIN_MINOR
          + "+): "
          + describe(e);
    }
    final Verdict decided = new Verdict(refusalFor(info));
    known = decided;
    return decided.refusal();
  }

  /** Null when {@code info} is at least 1.29, else the refusal naming the version. */
  static String refusalFor(final VersionInfo info) {
    final int major = leadingNumber(info.getMajor());
    final int minor = leadingNumber(info.getMinor());
    final String shown =
        info.getGitVersion() == null || info.getGitVersion().isBlank()
            ? info.getMajor() + "." + info.getMinor()
            : info.getGitVersion();
    if (major < 0 || minor < 0) {
      return "the API server reports a version without numbers ("
          + shown
          + "); the lmcache-mp-server native sidecar needs Kubernetes "
          + MIN_MAJOR
          + "."
          + MIN_MINOR
          + "+";
    }
    if (major > MIN_MAJOR || (major == MIN_MAJOR && minor >= MIN_MINOR)) {
      return null;
    }
    return "the lmcache-mp-server is a native sidecar, which needs Kubernetes "
        + MIN_MAJOR
        + "."
        + MIN_MINOR
        + "+; the API server is "
        + shown
        + " and would refuse the injected pod";
  }

  private static String describe(final Exception e) {
    if (e instanceof ApiException a) {
      if (a.getCode() == 0) {
        return a.getCause() == null ? "no response" : a.getCause().toString();
      }
      final String body = a.getResponseBody();
      return "HTTP " + a.getCode() + (body == null || body.isBlank() ? "" : " " + body.strip());
    }
    return e.toString();
  }

  /** The digits a version field starts with ({@code "29+"} → 29), or -1. */
  private static int leadingNumber(final String s) {
    if (s == null) {
      return -1;
    }
    int end = 0;
    while (end < s.length() && end < 9 && Character.isDigit(s.charAt(end))) {
      end++;
    }
    return end == 0 ? -1 : Integer.parseInt(s.substring(0, end));
  }
}
