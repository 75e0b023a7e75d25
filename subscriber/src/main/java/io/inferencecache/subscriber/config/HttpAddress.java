package io.inferencecache.subscriber.config;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where the subscriber's HTTP endpoint listens ({@code --http-address}): {@code host:port}, {@code
 * :port} (every interface) or {@code [ipv6]:port}, the port 0–65535 (0 picks a free one). The forms
 * are the server's {@code --http-bind-address} ones.
 *
 * @param host the interface to bind; empty = every interface
 * @param port the port; 0 = any free port
 */
public record HttpAddress(String host, int port) {
  /** Parses {@code text}; the error message names {@code flag} and the value. */
  public static HttpAddress parse(final String flag, final String text) {
    final String problem = "want host:port, :port or [ipv6]:port, got \"" + text + "\"";
    if (text == null || text.isEmpty() || !text.strip().equals(text)) {
      throw new InvalidConfigException(flag + ": " + problem);
    }
    final URI uri;
    try {
      // A leading ':' has no host: any host stands in for the parse and is dropped after it.
      uri = new URI("http://" + (text.charAt(0) == ':' ? "any" : "") + text);
    } catch (final URISyntaxException e) {
      throw new InvalidConfigException(flag + ": " + problem);
    }
    final int colon = text.lastIndexOf(':');
    final boolean digitsOnly =
        colon >= 0
            && colon < text.length() - 1
            && text.substring(colon + 1).chars().allMatch(c -> c >= '0' && c <= '9');
    if (uri.getHost() == null
        || uri.getPort() < 0
        || uri.getPort() > 65535
        || !digitsOnly
        || uri.getRawPath() == null
        || !uri.getRawPath().isEmpty()
        || uri.getRawUserInfo() != null) {
      throw new InvalidConfigException(flag + ": " + problem);
    }
    final String host = text.charAt(0) == ':' ? "" : uri.getHost();
    return new HttpAddress(
        host.startsWith("[") ? host.substring(1, host.length() - 1) : host, uri.getPort());
  }

  /** The address to bind (the host resolved now; empty = the wildcard address). */
  public InetSocketAddress socketAddress() {
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
