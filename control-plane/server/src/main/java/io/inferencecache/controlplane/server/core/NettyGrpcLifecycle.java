package io.inferencecache.controlplane.server.core;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.HuggingFaceTokenizers;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import io.inferencecache.service.server.InferenceCacheService;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real gRPC server: the service module's grpc-netty {@link GrpcServer} serving {@link
 * InferenceCacheService} (zero-copy LookupRoute) over the open index, with the tokenizers of {@code
 * --tokenizer-models-dir} for prompt_text lookups.
 */
public final class NettyGrpcLifecycle implements GrpcLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(NettyGrpcLifecycle.class);

  /** The factory the application uses. */
  public static final GrpcLifecycleFactory FACTORY = NettyGrpcLifecycle::new;

  private final GrpcContext context;
  private volatile GrpcServer server;
  private volatile InferenceCacheService service;
  private HuggingFaceTokenizers tokenizers;

  private NettyGrpcLifecycle(final GrpcContext context) {
    this.context = context;
  }

  @Override
  public void start() throws Exception {
    final CacheIndex index = context.index();
    final PromptTokenizer tokenizer = tokenizer(context.engine().getTokenizerModelsDir());
    final LookupMetrics metrics = context.routeMetrics()::record;
    final LookupRouteHandler handler =
        new LookupRouteHandler(
            index, tokenizer, context.engine().getBlockSize(), metrics, System::nanoTime);
    service = new InferenceCacheService(index, handler, metrics, System::nanoTime, context.feed());
    service.pdRoutes().metrics(context.routeMetrics().pd()::record);
    if (context.forwarder() != null) {
      service.forwardIngest(context.forwarder());
    }
    final GrpcServerConfig cfg =
        context
            .grpc()
            .build(context.address(), context.tls().getCertFile(), context.tls().getKeyFile());
    final GrpcServer s =
        GrpcServer.builder(cfg)
            .addService(service.definition(true))
            .onShed(service::answerShed) // a shed LookupRoute is NO_HINT with OK, never an error
            .build();
    try {
      s.start();
    } catch (IOException e) {
      s.close();
      throw e;
    }
    server = s;
    LOG.info(
        "event=grpc_serving address={} port={} transport={} tls={}",
        context.address(),
        s.port(),
        s.transport(),
        s.tlsEnabled());
  }

  private PromptTokenizer tokenizer(final String dir) throws IOException {
    if (dir == null || dir.isBlank()) {
      return PromptTokenizer.NONE;
    }
    tokenizers = HuggingFaceTokenizers.load(Path.of(dir.trim()));
    return tokenizers;
  }

  /** The bound port (for tests binding port 0); -1 before start. */
  public int port() {
    final GrpcServer s = server;
    return s == null ? -1 : s.port();
  }

  @Override
  public void stop() {
    // Close the streaming feeds first: their open streams would hold up the server's drain.
    context.feed().close();
    final GrpcServer s = server;
    if (s != null) {
      s.close();
    }
    if (service != null) {
      service.shutdown();
    }
    if (tokenizers != null) {
      tokenizers.close();
    }
  }

  @Override
  public boolean serving() {
    final GrpcServer s = server;
    return s != null && s.isServing();
  }

  @Override
  public long openConnections() {
    final GrpcServer s = server;
    return s == null ? 0 : s.openConnections();
  }

  @Override
  public long refusedConnections() {
    final GrpcServer s = server;
    return s == null ? 0 : s.refusedConnections();
  }

  @Override
  public long shedCalls() {
    final GrpcServer s = server;
    return s == null ? 0 : s.rejectedCalls();
  }

  @Override
  public long ingestEntriesDropped(final IngestRules.EntryDrop reason) {
    final InferenceCacheService s = service;
    return s == null ? 0 : s.ingestRules().entriesDropped(reason);
  }

  @Override
  public long ingestUpdatesDropped(final IngestRules.UpdateDrop reason) {
    final InferenceCacheService s = service;
    return s == null ? 0 : s.ingestRules().updatesDropped(reason);
  }

  @Override
  public long ingested(final IngestRules.Ingested what) {
    final InferenceCacheService s = service;
    return s == null ? 0 : s.ingestRules().ingested(what);
  }

  @Override
  public IngestRules ingestRules() {
    final InferenceCacheService s = service;
    return s == null ? null : s.ingestRules();
  }

  @Override
  public boolean tlsEnabled() {
    return context.tls().enabled();
  }
}
