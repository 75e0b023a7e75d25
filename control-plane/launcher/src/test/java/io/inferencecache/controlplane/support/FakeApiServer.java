package io.inferencecache.controlplane.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the API server's TokenReview endpoint ({@code POST
 * /apis/authentication.k8s.io/v1/tokenreviews}) on 127.0.0.1 and an ephemeral port. A token is
 * authenticated only when it is known and the requested audiences intersect its own (as the real
 * API server does); {@link #stop()} makes the endpoint unreachable.
 */
public final class FakeApiServer implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private record Identity(String username, Set<String> audiences) {}

  private final HttpServer server;
  private final Map<String, Identity> tokens = new ConcurrentHashMap<>();
  private final AtomicInteger reviews = new AtomicInteger();
  private final List<String> seenAudiences = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Set<String> expired = ConcurrentHashMap.newKeySet();
  private volatile long delayMillis;
  private final CountDownLatch stopped = new CountDownLatch(1);

  public FakeApiServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
    server.createContext(
        "/apis/authentication.k8s.io/v1/tokenreviews",
        exchange -> {
          try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
              exchange.sendResponseHeaders(405, -1);
              return;
            }
            reviews.incrementAndGet();
            final long delay = delayMillis;
            if (delay > 0) {
              // Held back for the delay, or until the server stops (whichever comes first).
              try {
                stopped.await(delay, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            final JsonNode req = MAPPER.readTree(exchange.getRequestBody());
            final String token = req.path("spec").path("token").asText("");
            final Set<String> requested = new java.util.HashSet<>();
            req.path("spec").path("audiences").forEach(a -> requested.add(a.asText()));
            seenAudiences.addAll(requested);
            final Identity id = tokens.get(token);
            final ObjectNode resp = MAPPER.createObjectNode();
            resp.put("apiVersion", "authentication.k8s.io/v1").put("kind", "TokenReview");
            resp.set("spec", req.path("spec").deepCopy());
            final ObjectNode status = resp.putObject("status");
            final boolean audienceOk =
                id != null
                    && (requested.isEmpty()
                        || requested.stream().anyMatch(id.audiences()::contains));
            if (expired.contains(token)) {
              status.put("authenticated", false);
              status.put("error", "[invalid bearer token, service account token has expired]");
            } else if (id != null && audienceOk) {
              status.put("authenticated", true);
              status.putObject("user").put("username", id.username());
              status.putArray("audiences").add(requested.iterator().next());
            } else {
              status.put("authenticated", false);
              status.put(
                  "error", id == null ? "invalid bearer token" : "token audiences are invalid");
            }
            final byte[] body = MAPPER.writeValueAsBytes(resp);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          } catch (RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
          }
        });
    server.start();
  }

  /** Registers a token for {@code username}, valid for {@code audiences}. */
  public FakeApiServer token(final String token, final String username, final String... audiences) {
    tokens.put(token, new Identity(username, Set.of(audiences)));
    return this;
  }

  /** Registers a token the API server knows but reports as expired (authenticated=false). */
  public FakeApiServer expired(final String token) {
    expired.add(token);
    return this;
  }

  /** Delays every review answer by {@code millis} (a slow API server). */
  public FakeApiServer delay(final long millis) {
    delayMillis = millis;
    return this;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public int reviews() {
    return reviews.get();
  }

  public List<String> seenAudiences() {
    return seenAudiences;
  }

  public void stop() {
    stopped.countDown();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }

  @Override
  public void close() {
    stop();
  }

  static String utf8(final byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
