package io.inferencecache.controlplane.webhook;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsServer;
import io.inferencecache.controlplane.https.HttpsListener;
import io.inferencecache.service.server.BindAddress;
import io.inferencecache.service.tls.ReloadingKeyManager;
import io.inferencecache.service.tls.TlsConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS listener of the admission webhooks. It serves {@code tls.crt}/{@code tls.key} from the
 * certificate directory and picks up a renewed pair on the next handshake after the certificate
 * file changes (at most one look per second; a broken pair keeps the last good one). Each exact
 * path maps to one {@link AdmissionHandler}.
 *
 * <p>Every request gets an answer and none can stop the server: another method is 405, an unknown
 * path 404, a body that is not JSON by its Content-Type 415, a body over {@link #MAX_BODY_BYTES}
 * 413, a body that is not an {@code admission.k8s.io/v1} AdmissionReview 400 with the reason as
 * text; a handler that throws is 500 for that request. Verdicts are 200 with an AdmissionReview.
 */
public final class WebhookServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

  /** Bodies are read up to this size (the API server's own objects stay under 3 MiB). */
  public static final int MAX_BODY_BYTES = 7 * 1024 * 1024;

  /** Certificate file name inside the certificate directory (cert-manager's Secret key). */
  public static final String CERT_FILE = "tls.crt";

  /** Key file name inside the certificate directory. */
  public static final String KEY_FILE = "tls.key";

  private final HttpsServer server;
  private final ExecutorService executor;
  private final ReloadingKeyManager keys;
  private final Map<String, AdmissionHandler> handlers;

  /**
   * Binds the listener and loads the pair; call {@link #start()} to serve.
   *
   * @param bindAddress {@code host:port} or {@code :port} ({@code :0} picks a free port)
   * @param certDir directory holding {@code tls.crt} and {@code tls.key} (PEM)
   * @param handlers path → handler
   * @throws IOException when the address cannot be bound or the pair cannot be loaded, naming the
   *     flag and the file
   */
  public WebhookServer(
      final String bindAddress, final Path certDir, final Map<String, AdmissionHandler> handlers)
      throws IOException {
    this.handlers = Map.copyOf(handlers);
    final BindAddress a;
    try {
      a = BindAddress.parse("--webhook-bind-address", bindAddress);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
    try {
      this.keys = ReloadingKeyManager.load(certDir.resolve(CERT_FILE), certDir.resolve(KEY_FILE));
    } catch (TlsConfigException e) {
      throw new IOException("--webhook-cert-dir " + certDir + ": " + e.getMessage(), e);
    }
    final SSLContext tls;
    try {
      tls = SSLContext.getInstance("TLS");
      tls.init(new KeyManager[] {keys}, null, null);
    } catch (GeneralSecurityException e) {
      throw new IOException("webhook TLS: " + e.getMessage(), e);
    }
    final InetSocketAddress socket = HttpsListener.socket(a);
    try {
      server = HttpsListener.bind(socket, 64, tls);
    } catch (IOException e) {
      throw new IOException("--webhook-bind-address " + bindAddress + ": " + e.getMessage(), e);
    }
    final AtomicInteger n = new AtomicInteger();
    executor =
        Executors.newFixedThreadPool(
            4,
            r -> {
              final Thread t = new Thread(r, "webhook-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::exchange);
  }

  /** Starts serving. */
  public WebhookServer start() {
    server.start();
    LOG.info(
        "admission webhooks listening on https://{} ({} paths)",
        server.getAddress(),
        handlers.size());
    return this;
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The certificate currently served. */
  public X509Certificate certificate() {
    return keys.currentCertificate();
  }

  private void exchange(final HttpExchange ex) throws IOException {
    try (ex) {
      final AdmissionHandler handler = handlers.get(ex.getRequestURI().getPath());
      if (handler == null) {
        text(ex, 404, "no admission webhook at " + ex.getRequestURI().getPath());
        return;
      }
      if (!"POST".equals(ex.getRequestMethod())) {
        ex.getResponseHeaders().set("Allow", "POST");
        text(ex, 405, "admission webhooks accept POST only");
        return;
      }
      final String type = ex.getRequestHeaders().getFirst("Content-Type");
      if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
        text(ex, 415, "Content-Type must be application/json, got " + AdmissionRequest.quote(type));
        return;
      }
      final byte[] body = readUpTo(ex.getRequestBody(), MAX_BODY_BYTES + 1);
      final int length = body.length;
      if (length > MAX_BODY_BYTES) {
        text(ex, 413, "request body is larger than " + MAX_BODY_BYTES + " bytes");
        return;
      }
      final AdmissionRequest request;
      try {
        request = AdmissionRequest.decode(body, length);
      } catch (AdmissionReviewException e) {
        text(ex, 400, e.getMessage());
        return;
      }
      AdmissionResponse response;
      try {
        response = handler.handle(request);
      } catch (RuntimeException e) {
        LOG.error(
            "admission webhook {} failed on {} {}/{}",
            ex.getRequestURI().getPath(),
            request.operation(),
            request.namespace(),
            request.name(),
            e);
        text(ex, 500, "internal error: " + e);
        return;
      }
      final byte[] out = response.encode(request.uid());
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, out.length);
      try (OutputStream os = ex.getResponseBody()) {
        os.write(out);
      }
    } catch (IOException e) {
      LOG.debug("webhook exchange aborted: {}", e.toString());
    }
  }

  /** Reads until EOF or until {@code limit} bytes. */
  private static byte[] readUpTo(final InputStream in, final int limit) throws IOException {
    return in.readNBytes(limit);
  }

  private static void text(final HttpExchange ex, final int status, final String message)
      throws IOException {
    final byte[] bytes = (message + "\n").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
