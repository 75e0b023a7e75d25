package io.inferencecache.controlplane.doctor;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Service;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Runs the checks in their fixed order (server reachability, snapshot, policy, probe, backends,
 * engine-pod injection, orphan pods, tenants, policy coverage) and collects the report.
 */
public final class Doctor {
  /** The server Service doctor looks for, first in {@link #SERVER_NAMESPACE}, then anywhere. */
  public static final String SERVER_SERVICE = "inference-cache-server";

  public static final String SERVER_NAMESPACE = "inference-cache-system";
  public static final int DEFAULT_GRPC_PORT = 9090;

  /**
   * What to check.
   *
   * @param namespace scope of every list, {@code ""} for all namespaces
   * @param serverEndpoint {@code host[:grpcPort]}, or {@code ""} to discover the Service
   * @param snapshotPort the bridge port of {@code /snapshot}, {@code /policy}, {@code /probe}
   * @param snapshotToken bearer token for {@code /snapshot}, or {@code null}
   * @param configOnly skip every network check of the server and the remote stores
   * @param timeout bound of each network call
   */
  public record Options(
      String namespace,
      String serverEndpoint,
      int snapshotPort,
      String snapshotToken,
      boolean configOnly,
      Duration timeout) {}

  private Doctor() {}

  /** Runs every check; {@code warnings} gets the discovery warning, if any. */
  public static Report run(
      final ApiClient client, final Options o, final Clock clock, final PrintWriter warnings) {
    final Report report = new Report();
    if (!o.configOnly()) {
      String host;
      int port = DEFAULT_GRPC_PORT;
      String endpoint = o.serverEndpoint();
      if (endpoint.isEmpty()) {
        try {
          endpoint = discover(new CoreV1Api(client));
        } catch (ApiException | IllegalStateException e) {
          final String why =
              e instanceof ApiException a
                  ? "HTTP " + a.getCode() + " " + a.getMessage()
                  : e.getMessage();
          warnings.println("warning: server discovery failed: " + why);
          warnings.flush();
          endpoint = null;
        }
      }
      if (endpoint == null) {
        report.add(
            Code.SV001,
            "ServerReachability",
            "",
            "could not discover Service "
                + SERVER_SERVICE
                + "; pass --server-endpoint=host[:port] or grant get/list on services");
      } else {
        final int colon = endpoint.lastIndexOf(':');
        if (colon > 0 && endpoint.indexOf(']') < colon) {
          host = endpoint.substring(0, colon);
          port = Integer.parseInt(endpoint.substring(colon + 1));
        } else {
          host = endpoint;
        }
        final ServerChecks server = new ServerChecks(o.timeout());
        server.serverReachability(host, port, report);
        final String base = "http://" + host + ":" + o.snapshotPort();
        server.snapshotReachability(base + "/snapshot", o.snapshotToken(), report);
        server.endpointReachability(
            "PolicyReachability", base + "/policy", Code.PL001, Code.PL002, Code.PL003, report);
        server.endpointReachability(
            "ProbeReachability", base + "/probe", Code.PB001, Code.PB002, Code.PB003, report);
      }
    }
    final ClusterChecks cluster = new ClusterChecks(client, o.namespace(), o.timeout(), clock);
    final List<CacheBackend> backends = cluster.backends(report);
    if (backends != null) {
      cluster.cacheBackendHealth(backends, o.configOnly(), report);
      cluster.enginePodInjectionAudit(backends, report);
    }
    cluster.orphanPodCheck(report);
    cluster.cacheTenantHealth(report);
    if (backends != null) {
      cluster.cachePolicyCoverage(backends, report);
    }
    return report;
  }

  /** {@code inference-cache-server.<ns>.svc} of the server Service. */
  static String discover(final CoreV1Api core) throws ApiException {
    try {
      core.readNamespacedService(SERVER_SERVICE, SERVER_NAMESPACE).execute();
      return SERVER_SERVICE + "." + SERVER_NAMESPACE + ".svc";
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
    for (final V1Service s : core.listServiceForAllNamespaces().execute().getItems()) {
      if (SERVER_SERVICE.equals(s.getMetadata().getName())) {
        return SERVER_SERVICE + "." + s.getMetadata().getNamespace() + ".svc";
      }
    }
    throw new IllegalStateException("no Service named " + SERVER_SERVICE + " in any namespace");
  }
}
