package io.inferencecache.controlplane.doctor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Checks 1-4: the server's gRPC health and the three bridge endpoints. Only {@code /snapshot} gets
 * the bearer token; {@code /policy} and {@code /probe} are asked with {@code HEAD} and no token
 * (any answer but 404 shows the endpoint is served).
 */
final class ServerChecks {
  /** Largest {@code /snapshot} body read to decide whether it is JSON. */
  static final int MAX_SNAPSHOT_BYTES = 8 << 20;

  private final Duration timeout;
  private final HttpClient http;

  ServerChecks(final Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** {@code grpc.health.v1.Health/Check} with service {@code ""} over plaintext. */
  void serverReachability(final String target, final int port, final Report report) {
    final String check = "ServerReachability";
    final String resource = target + ":" + port;
    final ManagedChannel channel =
        NettyChannelBuilder.forAddress(target, port).usePlaintext().build();
    try {
      final HealthCheckResponse r =
          HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .check(HealthCheckRequest.newBuilder().setService("").build());
      if (r.getStatus() == HealthCheckResponse.ServingStatus.SERVING) {
        report.add(Code.SV003, check, resource, "gRPC health check is SERVING");
      } else {
        report.add(
            Code.SV002,
            check,
            resource,
            "gRPC health check answered "
                + r.getStatus()
                + "; the server is starting, draining or its index is not open");
      }
    } catch (RuntimeException e) {
      report.add(
          Code.SV001,
          check,
          resource,
          "gRPC health check failed: "
              + e.getMessage()
              + "; check that the server runs and that --server-endpoint is right");
    } finally {
      channel.shutdownNow();
    }
  }

  /** GET {@code /snapshot}, with the bearer token when there is one. */
  void snapshotReachability(final String url, final String token, final Report report) {
    final String check = "SnapshotReachability";
    final HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET();
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    final HttpResponse<InputStream> r;
    try {
      r = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      report.add(Code.SN001, check, url, "GET failed: " + e.getMessage());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      report.add(Code.SN001, check, url, "GET interrupted");
      return;
    }
    try (InputStream body = r.body()) {
      final int status = r.statusCode();
      if (status == 401 || status == 403) {
        report.add(
            Code.SN005,
            check,
            url,
            "answered "
                + status
                + ": the token was refused; the server admits only the controller's service account"
                + " with the controller audience (--snapshot-token-file)");
      } else if (status != 200) {
        report.add(Code.SN001, check, url, "answered HTTP " + status);
      } else {
        final byte[] bytes = body.readNBytes(MAX_SNAPSHOT_BYTES);
        try {
          new ObjectMapper().readTree(bytes);
          report.add(Code.SN004, check, url, "answered 200 with a JSON snapshot");
        } catch (IOException e) {
          report.add(Code.SN002, check, url, "answered 200 but the body is not JSON");
        }
      }
    } catch (IOException e) {
      report.add(
          Code.SN002, check, url, "answered but the body could not be read: " + e.getMessage());
    }
    if (token == null) {
      report.add(
          Code.SN003, check, url, "no bearer token was sent (no readable --snapshot-token-file)");
    }
  }

  /** HEAD {@code url}: 2xx/401/403/405 served, 404 or no answer FAIL, anything else WARN. */
  void endpointReachability(
      final String check,
      final String url,
      final Code fail,
      final Code ok,
      final Code odd,
      final Report report) {
    final HttpRequest req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(timeout)
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .build();
    final int status;
    try {
      status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      report.add(fail, check, url, "HEAD failed: " + e.getMessage());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      report.add(fail, check, url, "HEAD interrupted");
      return;
    }
    if (status == 404) {
      report.add(fail, check, url, "answered 404: this server does not serve the endpoint");
    } else if ((status >= 200 && status < 300) || status == 401 || status == 403 || status == 405) {
      report.add(ok, check, url, "endpoint is served (HEAD answered " + status + ")");
    } else {
      report.add(odd, check, url, "HEAD answered an unexpected HTTP " + status);
    }
  }
}
