package io.inferencecache.controlplane.server.config;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.GzipHandlerFactory;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.request.logging.LogbackAccessRequestLogFactory;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import java.util.Set;

/**
 * The server's YAML configuration ({@code serve --config FILE}, {@code ${ENV:-default}}
 * substituted). Every {@code serve} flag has a key here and the flag, when given, wins.
 * Dropwizard's own sections ({@code server}, {@code logging}, {@code metrics}) keep their meaning;
 * the defaults set here differ from Dropwizard's: no admin connector, no request log, no gzip, a 5
 * s shutdown grace period (upstream's HTTP shutdown timeout), JSON console logs. The application
 * connectors are always the {@code listeners.http} and {@code listeners.snapshot} addresses.
 */
public final class ControlPlaneConfiguration extends Configuration {
  @Valid @NotNull private ListenerSettings listeners = new ListenerSettings();
  @Valid @NotNull private AuthSettings auth = new AuthSettings();
  @Valid @NotNull private TlsSettings tls = new TlsSettings();
  @Valid @NotNull private EngineSettings engine = new EngineSettings();
  @Valid @NotNull private TemplateSettings templates = new TemplateSettings();
  @Valid @NotNull private LogSettings log = new LogSettings();
  @Valid @NotNull private IndexSettings index = new IndexSettings();
  @Valid @NotNull private GrpcSettings grpc = new GrpcSettings();
  @Valid @NotNull private KubernetesSettings kubernetes = new KubernetesSettings();
  @Valid @NotNull private FeedSettings feeds = new FeedSettings();
  @Valid @NotNull private ReplicationSettings replication = new ReplicationSettings();

  public ControlPlaneConfiguration() {
    setServerFactory(defaultServerFactory());
    final DefaultLoggingFactory logging = new DefaultLoggingFactory();
    final ConsoleAppenderFactory<ILoggingEvent> console = new ConsoleAppenderFactory<>();
    final List<AppenderFactory<ILoggingEvent>> appenders = List.of(console);
    logging.setAppenders(appenders);
    setLoggingFactory(logging);
  }

  /** Dropwizard's server factory with this application's defaults (see the class comment). */
  public static DefaultServerFactory defaultServerFactory() {
    final DefaultServerFactory server = new DefaultServerFactory();
    server.setAdminConnectors(List.of());
    final GzipHandlerFactory gzip = new GzipHandlerFactory();
    gzip.setEnabled(false);
    server.setGzipFilterFactory(gzip);
    final LogbackAccessRequestLogFactory requestLog = new LogbackAccessRequestLogFactory();
    requestLog.setAppenders(List.of());
    server.setRequestLogFactory(requestLog);
    server.setShutdownGracePeriod(Duration.seconds(5));
    server.setRegisterDefaultExceptionMappers(false);
    // Methods are the handlers' business (405 with Allow after authentication), not a filter's.
    server.setAllowedMethods(
        Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"));
    return server;
  }

  @JsonProperty
  public ListenerSettings getListeners() {
    return listeners;
  }

  @JsonProperty
  public void setListeners(final ListenerSettings v) {
    this.listeners = v;
  }

  @JsonProperty
  public AuthSettings getAuth() {
    return auth;
  }

  @JsonProperty
  public void setAuth(final AuthSettings v) {
    this.auth = v;
  }

  @JsonProperty
  public TlsSettings getTls() {
    return tls;
  }

  @JsonProperty
  public void setTls(final TlsSettings v) {
    this.tls = v;
  }

  @JsonProperty
  public EngineSettings getEngine() {
    return engine;
  }

  @JsonProperty
  public void setEngine(final EngineSettings v) {
    this.engine = v;
  }

  @JsonProperty
  public TemplateSettings getTemplates() {
    return templates;
  }

  @JsonProperty
  public void setTemplates(final TemplateSettings v) {
    this.templates = v;
  }

  @JsonProperty
  public LogSettings getLog() {
    return log;
  }

  @JsonProperty
  public void setLog(final LogSettings v) {
    this.log = v;
  }

  @JsonProperty
  public IndexSettings getIndex() {
    return index;
  }

  @JsonProperty
  public void setIndex(final IndexSettings v) {
    this.index = v;
  }

  @JsonProperty
  public GrpcSettings getGrpc() {
    return grpc;
  }

  @JsonProperty
  public void setGrpc(final GrpcSettings v) {
    this.grpc = v;
  }

  @JsonProperty
  public FeedSettings getFeeds() {
    return feeds;
  }

  @JsonProperty
  public void setFeeds(final FeedSettings v) {
    this.feeds = v;
  }

  @JsonProperty
  public ReplicationSettings getReplication() {
    return replication;
  }

  @JsonProperty
  public void setReplication(final ReplicationSettings v) {
    this.replication = v;
  }

  @JsonProperty
  public KubernetesSettings getKubernetes() {
    return kubernetes;
  }

  @JsonProperty
  public void setKubernetes(final KubernetesSettings v) {
    this.kubernetes = v;
  }
}
