package io.inferencecache.controlplane.cli;

import io.inferencecache.controlplane.server.ControlPlaneApplication;
import io.inferencecache.controlplane.server.ServeLauncher;
import io.inferencecache.controlplane.server.config.LogSettings;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.core.GrpcLifecycleFactory;
import io.inferencecache.controlplane.server.core.NettyGrpcLifecycle;
import io.inferencecache.controlplane.server.core.StartupException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code serve}: the data-plane server. The flags are upstream's ({@code cmd/server}), same names
 * and defaults (Go forms {@code --flag=value}, {@code --flag value} and {@code -flag} accepted);
 * everything else comes from an optional YAML file, which the flags override.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Run the server: gRPC, the public HTTP listener and the snapshot listener.")
public final class ServeCommand implements Callable<Integer> {
  /** The gRPC server this build wires (the service module's, once it is in the reactor). */
  static GrpcLifecycleFactory grpcFactory = NettyGrpcLifecycle.FACTORY;

  @Option(
      names = "--grpc-bind-address",
      paramLabel = "ADDR",
      description = "gRPC listen address (default :9090).")
  String grpcBindAddress;

  @Option(
      names = "--http-bind-address",
      paramLabel = "ADDR",
      description = "Public HTTP listener: /healthz, /readyz, /metrics (default :8080).")
  String httpBindAddress;

  @Option(
      names = "--snapshot-bind-address",
      paramLabel = "ADDR",
      description = "Snapshot listener: /snapshot, /policy, /probe (default :8081).")
  String snapshotBindAddress;

  @Option(
      names = "--allowed-controller-sa",
      paramLabel = "USER",
      description =
          "Service account admitted on the snapshot listener, e.g."
              + " system:serviceaccount:inference-cache-system:inference-cache-controller-manager"
              + " (required unless --insecure-disable-auth).")
  String allowedControllerSa;

  @Option(
      names = "--insecure-disable-auth",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description = "Serve the snapshot listener without authentication (default false).")
  Boolean insecureDisableAuth;

  @Option(
      names = "--controller-audience",
      paramLabel = "AUD",
      description =
          "TokenReview audience of /snapshot and /probe (default inferencecache.io/controller).")
  String controllerAudience;

  @Option(
      names = "--policy-audience",
      paramLabel = "AUD",
      description = "TokenReview audience of /policy (default inferencecache.io/policy).")
  String policyAudience;

  @Option(
      names = "--tls-cert-file",
      paramLabel = "FILE",
      description = "gRPC TLS certificate (PEM); with --tls-key-file, or neither (plaintext).")
  String tlsCertFile;

  @Option(
      names = "--tls-key-file",
      paramLabel = "FILE",
      description = "gRPC TLS private key (PEM).")
  String tlsKeyFile;

  @Option(
      names = "--engine-block-size",
      paramLabel = "N",
      description =
          "Tokens per block for token_ids/prompt_text lookups (default 16; non-positive ignored).")
  Integer engineBlockSize;

  @Option(
      names = "--tokenizer-models-dir",
      paramLabel = "DIR",
      description = "Directory of <model_id>/tokenizer.json files (default none).")
  String tokenizerModelsDir;

  @Option(
      names = "--tenant-key-file",
      paramLabel = "FILE",
      description =
          "Secret of RenderTemplate's tenant_namespace (HMAC-SHA256 of the tenant id; default"
              + " none: empty).")
  String tenantKeyFile;

  @Option(
      names = "--log-format",
      paramLabel = "FORMAT",
      description = "json or text (default json).")
  String logFormat;

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      description = "debug, info, warn (warning) or error (default info).")
  String logLevel;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "YAML configuration ($${ENV:-default} substituted); flags override it.")
  String configOption;

  @Parameters(
      arity = "0..1",
      paramLabel = "FILE",
      description = "The YAML configuration, as an alternative to --config.")
  String configPositional;

  @Override
  public Integer call() throws Exception {
    // Correction 12: the log flags are checked first of all.
    try {
      LogSettings.parseFormat(logFormat);
      LogSettings.parseLevel(logLevel);
    } catch (IllegalArgumentException e) {
      throw new StartupException(StartupException.USAGE, "server: " + e.getMessage(), e);
    }
    if (configOption != null && configPositional != null) {
      throw new StartupException(
          StartupException.USAGE, "server: give the configuration file once (--config or FILE)");
    }
    final String config = configOption != null ? configOption : configPositional;
    final ServeLauncher.Running running =
        ServeLauncher.start(
            new ControlPlaneApplication(grpcFactory),
            overrides(),
            config,
            ServeLauncher.KUBERNETES);
    running.join();
    return 0;
  }

  ServeOverrides overrides() {
    return new ServeOverrides(
        grpcBindAddress,
        httpBindAddress,
        snapshotBindAddress,
        allowedControllerSa,
        insecureDisableAuth,
        controllerAudience,
        policyAudience,
        tlsCertFile,
        tlsKeyFile,
        engineBlockSize,
        tokenizerModelsDir,
        logFormat,
        logLevel,
        tenantKeyFile);
  }
}
