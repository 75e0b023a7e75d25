package io.inferencecache.controlplane.https;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.inferencecache.service.server.BindAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * How the operator's JDK listeners bind: the socket of a parsed {@code host:port} (an empty host is
 * the wildcard address), and an HTTPS server that speaks TLS 1.3 or 1.2 and offers only {@code
 * http/1.1} by ALPN.
 */
public final class HttpsListener {
  private HttpsListener() {}

  /** The socket {@code address} names; an empty host binds every interface. */
  public static InetSocketAddress socket(final BindAddress address) {
    return address.host().isEmpty()
        ? new InetSocketAddress(address.port())
        : new InetSocketAddress(address.host(), address.port());
  }

  /**
   * Binds an HTTPS server on {@code socket} serving {@code tls}; call {@code start()} to serve.
   *
   * @throws IOException when the socket cannot be bound
   */
  public static HttpsServer bind(
      final InetSocketAddress socket, final int backlog, final SSLContext tls) throws IOException {
    final HttpsServer server = HttpsServer.create(socket, backlog);
    server.setHttpsConfigurator(
        new HttpsConfigurator(tls) {
          @Override
          public void configure(final HttpsParameters params) {
            final SSLParameters p = tls.getDefaultSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            p.setApplicationProtocols(new String[] {"http/1.1"});
            params.setSSLParameters(p);
          }
        });
    return server;
  }
}
