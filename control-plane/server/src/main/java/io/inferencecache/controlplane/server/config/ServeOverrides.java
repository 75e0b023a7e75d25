package io.inferencecache.controlplane.server.config;

/**
 * The {@code serve} flags that were given on the command line ({@code null} = not given, the
 * configuration file or its default applies). Applied on top of the parsed YAML: flags win.
 */
public record ServeOverrides(
    String grpcBindAddress,
    String httpBindAddress,
    String snapshotBindAddress,
    String allowedControllerSa,
    Boolean insecureDisableAuth,
    String controllerAudience,
    String policyAudience,
    String tlsCertFile,
    String tlsKeyFile,
    Integer engineBlockSize,
    String tokenizerModelsDir,
    String logFormat,
    String logLevel,
    String tenantKeyFile) {

  /** No flag given. */
  public static final ServeOverrides NONE =
      new ServeOverrides(
          null, null, null, null, null, null, null, null, null, null, null, null, null, null);

  /** Writes every given flag into {@code c}. */
  public void applyTo(final ControlPlaneConfiguration c) {
    if (grpcBindAddress != null) {
      c.getListeners().setGrpc(grpcBindAddress);
    }
    if (httpBindAddress != null) {
      c.getListeners().setHttp(httpBindAddress);
    }
    if (snapshotBindAddress != null) {
      c.getListeners().setSnapshot(snapshotBindAddress);
    }
    if (allowedControllerSa != null) {
      c.getAuth().setAllowedControllerSa(allowedControllerSa);
    }
    if (insecureDisableAuth != null) {
      c.getAuth().setInsecureDisableAuth(insecureDisableAuth);
    }
    if (controllerAudience != null) {
      c.getAuth().setControllerAudience(controllerAudience);
    }
    if (policyAudience != null) {
      c.getAuth().setPolicyAudience(policyAudience);
    }
    if (tlsCertFile != null) {
      c.getTls().setCertFile(tlsCertFile);
    }
    if (tlsKeyFile != null) {
      c.getTls().setKeyFile(tlsKeyFile);
    }
    if (engineBlockSize != null) {
      c.getEngine().setBlockSize(engineBlockSize);
    }
    if (tokenizerModelsDir != null) {
      c.getEngine().setTokenizerModelsDir(tokenizerModelsDir);
    }
    if (logFormat != null) {
      c.getLog().setFormat(logFormat);
    }
    if (logLevel != null) {
      c.getLog().setLevel(logLevel);
    }
    if (tenantKeyFile != null) {
      c.getTemplates().setTenantKeyFile(tenantKeyFile);
    }
  }

  /** This with the listener addresses replaced (tests bind ephemeral ports). */
  public ServeOverrides withListeners(final String grpc, final String http, final String snapshot) {
    return new ServeOverrides(
        grpc,
        http,
        snapshot,
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

  /** This with authentication disabled. */
  public ServeOverrides insecure() {
    return new ServeOverrides(
        grpcBindAddress,
        httpBindAddress,
        snapshotBindAddress,
        null,
        Boolean.TRUE,
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

  /** This requiring {@code serviceAccount}. */
  public ServeOverrides allowing(final String serviceAccount) {
    return new ServeOverrides(
        grpcBindAddress,
        httpBindAddress,
        snapshotBindAddress,
        serviceAccount,
        null,
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
