package io.inferencecache.controlplane.server.core;

import io.inferencecache.controlplane.server.config.EngineSettings;
import io.inferencecache.controlplane.server.config.GrpcSettings;
import io.inferencecache.controlplane.server.config.TlsSettings;
import io.inferencecache.controlplane.server.metrics.RouteMetrics;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.service.server.BindAddress;

/**
 * Everything the gRPC server needs, handed to {@link GrpcLifecycleFactory} once the index is open.
 *
 * @param index the open, started index
 * @param routeMetrics pass {@code routeMetrics::record} as the service's {@code LookupMetrics}
 * @param address the {@code --grpc-bind-address}
 * @param tls certificate and key files (both empty = plaintext)
 * @param grpc limits and drain timeout
 * @param engine block size and tokenizer directory for token_ids / prompt_text lookups
 * @param feed the StreamCacheEvents / StreamMetrics feed (an index listener, registered already)
 * @param forwarder where ReportCacheState / PublishEvent go first (replication on), or null
 * @param templates the PromptTemplates RenderTemplate renders from ({@code /prompt-templates})
 * @param renderMetrics pass {@code templateMetrics::record} as the service's {@code RenderMetrics}
 * @param tenantKey the secret of RenderTemplate's {@code tenant_namespace}
 */
public record GrpcContext(
    CacheIndex index,
    RouteMetrics routeMetrics,
    BindAddress address,
    TlsSettings tls,
    GrpcSettings grpc,
    EngineSettings engine,
    io.inferencecache.service.streams.IndexChangeFeed feed,
    io.inferencecache.service.ingest.IngestForwarder forwarder,
    io.inferencecache.templates.TemplateStore templates,
    io.inferencecache.service.render.RenderMetrics renderMetrics,
    io.inferencecache.service.render.TenantKey tenantKey) {}
