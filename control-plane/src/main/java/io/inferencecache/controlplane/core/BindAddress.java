package io.inferencecache.controlplane.core;

/**
 * A Go listen address: {@code host:port}, {@code :port} (every interface) or {@code [v6]:port}.
 *
 * @param host the host, empty for every interface
 * @param port 0–65535 (0 = an ephemeral port)
 */
public record BindAddress(String host, int port) {

  /**
   * Parses {@code addr}.
   *
   * @throws IllegalArgumentException naming the problem (a listen failure upstream: exit 1)
   */
  public static BindAddress parse(final String addr) {
    final int colon = addr.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("listen tcp " + addr + ": missing port in address");
    }
    String host = addr.substring(0, colon);
    final String port = addr.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException("listen tcp " + addr + ": too many colons in address");
    }
    final int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("listen tcp " + addr + ": unknown port", e);
    }
    if (p < 0 || p > 65535) {
      throw new IllegalArgumentException("listen tcp " + addr + ": invalid port");
    }
    return new BindAddress(host, p);
  }

  /** The host to bind, {@code null} for every interface (Jetty's convention). */
  public String bindHostOrNull() {
    return host.isEmpty() ? null : host;
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
