package io.inferencecache.kubelocal;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Config;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A running kube-local: a real kube-apiserver 1.20 with etcd on 127.0.0.1, started by {@code
 * bin/kube-local up} with a fresh data directory (one per JVM, see {@link KubeLocalTest}).
 *
 * <p>The server authorizes with RBAC, issues ServiceAccount tokens through the TokenRequest API and
 * checks them in TokenReview (audiences honoured; issuer and default audience {@value #ISSUER}).
 * The admin credential in {@link #kubeconfig()} is a bearer token in group {@code system:masters}.
 * Admission plugins {@code ServiceAccount} and {@code RuntimeClass} are off, so pods need neither a
 * ServiceAccount nor a RuntimeClass.
 *
 * <p>Limits of this 1.20 server, to keep in mind when writing a test:
 *
 * <ul>
 *   <li>CEL rules ({@code x-kubernetes-validations}) are ignored: test them with the CEL library
 *       against the same expressions.
 *   <li>{@code default: ""} is refused in some schemas: {@link #applyCrdsFor120(Path)} strips it
 *       (never edit the shipped YAML for this server).
 *   <li>There is no kube-controller-manager: no garbage collection of owned objects, no default
 *       ServiceAccount in new namespaces ({@link #createToken} creates the ServiceAccount), and a
 *       deleted namespace stays {@code Terminating} forever. Use {@link #newNamespace()} for every
 *       test and never delete namespaces.
 *   <li>{@code kubectl} is 1.32: use {@code apply --validate=false} (the client-side schema check
 *       does not understand 1.20's OpenAPI).
 * </ul>
 */
public final class KubeLocal {

  /** The ServiceAccount token issuer, also the API server's default audience. */
  public static final String ISSUER = "https://kube-local.invalid";

  private static final long KUBECTL_TIMEOUT_SECONDS = 120;

  private final Path script;
  private final Path directory;
  private final Path kubeconfig;
  private final String server;
  private final ApiClient adminClient;
  private final Path kubectl;
  private final AtomicInteger namespaces = new AtomicInteger();

  private KubeLocal(Path script, Path directory, Path kubectl) {
    this.script = script;
    this.directory = directory;
    this.kubectl = kubectl;
    this.kubeconfig = directory.resolve("kubeconfig");
    Map<String, String> env = readEnvFile(directory.resolve("env"));
    this.server = env.get("KUBE_LOCAL_SERVER");
    if (server == null) {
      throw new IllegalStateException("kube-local wrote no server address in " + directory);
    }
    try {
      this.adminClient = Config.fromConfig(kubeconfig.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + kubeconfig, e);
    }
  }

  /**
   * Runs {@code script up directory --owner <this JVM>} and connects to the result. The script's
   * progress (and a first build of kube-apiserver, if needed) goes to this JVM's stderr.
   */
  static KubeLocal start(Path script, Path directory, Path kubectl) {
    List<String> command =
        List.of(
            script.toString(),
            "up",
            directory.toString(),
            "--owner",
            Long.toString(ProcessHandle.current().pid()));
    ProcessResult up = Processes.run(command, Map.of(), null, 3600, true);
    if (!up.succeeded()) {
      throw new IllegalStateException(
          "kube-local did not start (exit code "
              + up.exitCode()
              + "; its messages are above, logs in "
              + directory
              + "). Start it by hand to see why: "
              + script
              + " up");
    }
    return new KubeLocal(script, directory, kubectl);
  }

  /** Stops the API server and etcd by PID ({@code bin/kube-local down}); the directory stays. */
  void stop() {
    Processes.run(
        List.of(script.toString(), "down", directory.toString()), Map.of(), null, 60, true);
  }

  /** The admin kubeconfig (absolute path); {@code KUBECONFIG=} this works for any client. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The API server's URL, {@code https://127.0.0.1:<port>}. */
  public String server() {
    return server;
  }

  /** The data directory: kubeconfig, PKI, logs ({@code kube-apiserver.log}, {@code etcd.log}). */
  public Path directory() {
    return directory;
  }

  /** The CA certificate (PEM) that signed the API server's serving certificate. */
  public Path caCertificate() {
    return directory.resolve("pki/ca.crt");
  }

  /**
   * A client-java client with cluster-admin rights (group {@code system:masters}), shared by all
   * callers. For informers and watches, derive a client without read timeout from it (see the
   * official client's informer examples).
   */
  public ApiClient adminClient() {
    return adminClient;
  }

  /** A new client that authenticates with {@code bearerToken} (a ServiceAccount token, say). */
  public ApiClient clientWithToken(String bearerToken) {
    try {
      return new ClientBuilder()
          .setBasePath(server)
          .setCertificateAuthority(Files.readAllBytes(caCertificate()))
          .setAuthentication(new AccessTokenAuthentication(bearerToken))
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + caCertificate(), e);
    }
  }

  /**
   * Creates a namespace no other test uses and returns its name. Namespaces are never deleted: on
   * this server a deleted namespace stays {@code Terminating}.
   */
  public String newNamespace() {
    String name =
        String.format(
            "t%d-%06x",
            namespaces.incrementAndGet(), ThreadLocalRandom.current().nextInt(0x1000000));
    try {
      new CoreV1Api(adminClient)
          .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name)))
          .execute();
    } catch (ApiException e) {
      throw failure("create namespace " + name, e);
    }
    return name;
  }

  /**
   * Runs {@code /usr/bin/kubectl} (1.32) with this kube-local's kubeconfig.
   *
   * @param args kubectl's arguments, e.g. {@code "get", "ns", "-o", "name"}
   */
  public ProcessResult kubectl(String... args) {
    return kubectlWithInput(null, args);
  }

  /** Like {@link #kubectl(String...)}, with {@code stdin} as kubectl's input ({@code -f -}). */
  public ProcessResult kubectlWithInput(String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectl.toString());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    return Processes.run(
        command,
        Map.of("KUBECONFIG", kubeconfig.toString()),
        stdin,
        KUBECTL_TIMEOUT_SECONDS,
        false);
  }

  /**
   * Issues a token for ServiceAccount {@code serviceAccount} in {@code namespace} with one audience
   * (TokenRequest API, valid one hour), creating the ServiceAccount first if it does not exist.
   */
  public String createToken(String namespace, String serviceAccount, String audience) {
    CoreV1Api core = new CoreV1Api(adminClient);
    try {
      core.createNamespacedServiceAccount(
              namespace, new V1ServiceAccount().metadata(new V1ObjectMeta().name(serviceAccount)))
          .execute();
    } catch (ApiException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw failure("create ServiceAccount " + namespace + "/" + serviceAccount, e);
      }
    }
    try {
      AuthenticationV1TokenRequest request =
          new AuthenticationV1TokenRequest()
              .spec(new V1TokenRequestSpec().audiences(List.of(audience)).expirationSeconds(3600L));
      AuthenticationV1TokenRequest issued =
          core.createNamespacedServiceAccountToken(serviceAccount, namespace, request).execute();
      return issued.getStatus().getToken();
    } catch (ApiException e) {
      throw failure("issue a token for " + namespace + "/" + serviceAccount, e);
    }
  }

  /**
   * Applies the CustomResourceDefinitions in {@code path} (a YAML file, or every {@code *.yaml} /
   * {@code *.yml} file directly in a directory; other kinds of documents are skipped) for this 1.20
   * server only: {@code default: ""} is stripped first, then {@code kubectl apply --validate=false}
   * runs and each CRD is awaited until {@code Established}.
   *
   * @return the names of the applied CRDs
   * @throws IllegalStateException if kubectl refuses a CRD (its message included) or a CRD does not
   *     become Established within a minute
   */
  public List<String> applyCrdsFor120(Path path) {
    StringBuilder yaml = new StringBuilder();
    List<String> names = new ArrayList<>();
    for (Path file : yamlFiles(path)) {
      CrdsFor120.Rewritten rewritten;
      try {
        rewritten = CrdsFor120.rewrite(Files.readString(file), file.toString());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      } catch (IllegalArgumentException noCrd) {
        continue;
      }
      yaml.append("---\n").append(rewritten.yaml());
      names.addAll(rewritten.names());
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no CustomResourceDefinition in " + path);
    }
    ProcessResult applied =
        kubectlWithInput(yaml.toString(), "apply", "--validate=false", "-f", "-");
    if (!applied.succeeded()) {
      throw new IllegalStateException(
          "kubectl apply of the CRDs in " + path + " failed: " + applied.stderr().strip());
    }
    List<String> wait =
        new ArrayList<>(List.of("wait", "--for=condition=Established", "--timeout=60s"));
    names.forEach(name -> wait.add("crd/" + name));
    ProcessResult established = kubectl(wait.toArray(String[]::new));
    if (!established.succeeded()) {
      throw new IllegalStateException(
          "CRDs from " + path + " not Established: " + established.stderr().strip());
    }
    return List.copyOf(names);
  }

  @Override
  public String toString() {
    return "kube-local " + server + " (" + directory + ")";
  }

  private static List<Path> yamlFiles(Path path) {
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> files = Files.list(path)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + path, e);
    }
  }

  private static Map<String, String> readEnvFile(Path file) {
    Map<String, String> values = new HashMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return values;
  }

  private static IllegalStateException failure(String what, ApiException e) {
    return new IllegalStateException(
        "cannot " + what + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
  }
}
