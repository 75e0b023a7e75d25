package io.inferencecache.service.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.PromptTokenizer;
import java.io.IOException;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * An index, the LookupRoute handler and the gRPC service on an in-process server, with a blocking
 * stub. Closes everything it made.
 */
final class ServiceHarness implements AutoCloseable {
  final CacheIndex index;
  final LookupRouteHandler handler;
  final InferenceCacheService service;
  final Server server;
  final ManagedChannel channel;
  final InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  ServiceHarness(
      final IndexConfig config,
      final PromptTokenizer tokenizer,
      final int blockSize,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final boolean zeroCopy)
      throws IOException {
    index = CacheIndex.open(config);
    index.start();
    handler = new LookupRouteHandler(index, tokenizer, blockSize, metrics, nanoTime);
    service = new InferenceCacheService(index, handler, metrics, nanoTime, null);
    final String name = "ic-" + UUID.randomUUID();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(service.definition(zeroCopy))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = InferenceCacheGrpc.newBlockingStub(channel);
  }

  static ServiceHarness defaults(final boolean zeroCopy) throws IOException {
    return new ServiceHarness(
        new IndexConfig().maxEntries(100_000),
        PromptTokenizer.NONE,
        16,
        LookupMetrics.NOOP,
        System::nanoTime,
        zeroCopy);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    service.shutdown();
    index.close();
  }
}
