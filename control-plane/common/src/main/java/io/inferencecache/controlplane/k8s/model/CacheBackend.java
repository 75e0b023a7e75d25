package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import io.kubernetes.client.openapi.models.V1TopologySpreadConstraint;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * Binds engine pods to a KV-cache hierarchy and to the routing index ({@code cachebackends}, short
 * name cb).
 */
public final class CacheBackend extends CustomResource<CacheBackend.Spec, CacheBackend.Status> {
  public static final CrdKind<CacheBackend, CacheBackendList> CRD =
      new CrdKind<>(
          CacheBackend.class, CacheBackendList.class, "CacheBackend", "cachebackends", true);

  public CacheBackend() {
    super("CacheBackend");
  }

  /** The backend's desired shape. */
  public static class Spec {
    public EngineRuntime runtime;
    public CacheType type;
    public LMCacheEngine lmCache;
    public RemoteStorage remoteStorage;
    public Observation observation;
    public Integration integration;
    public EngineSelector engineSelector;
    public HiCache hiCache;
    public Boolean allowCrossNamespace;
  }

  /** Inference engine of the selected pods. */
  public enum EngineRuntime {
    VLLM,
    @SerializedName("SGLang")
    SGLANG
  }

  /** Engine-side cache implementation. */
  public enum CacheType {
    @SerializedName("LMCache")
    LMCACHE,
    @SerializedName("SGLangHiCache")
    SGLANG_HICACHE
  }

  /** LMCache multiprocess server placement. */
  public static class LMCacheEngine {
    public Topology topology;
    public PodLocal podLocal;
    public NodeLocal nodeLocal;
    public Integer chunkSizeTokens;
  }

  /** Where the LMCache server runs. */
  public enum Topology {
    @SerializedName("PodLocal")
    POD_LOCAL,
    @SerializedName("NodeLocal")
    NODE_LOCAL
  }

  /** One server sidecar per engine pod. */
  public static class PodLocal {
    public PodLocalServer server;
  }

  /** The per-pod server. */
  public static class PodLocalServer {
    public String image;
    public Integer port;
    public Quantity l1Capacity;
    public Integer maxWorkers;
    public V1ResourceRequirements resources;
  }

  /** One shared server per engine node. */
  public static class NodeLocal {
    public NodeLocalServer server;
    public Integer idleRetentionSeconds;
    public PodScheduling scheduling;
  }

  /** The per-node server. */
  public static class NodeLocalServer {
    public String image;
    public Integer port;
    public Integer httpPort;
    public Quantity l1Capacity;
    public Integer maxGPUWorkers;
    public Integer maxCPUWorkers;
    public V1ResourceRequirements resources;
  }

  /** Shared remote tier; absent means host-only. */
  public static class RemoteStorage {
    public Provider provider;
    public Ownership ownership;
    public String endpoint;
    public ManagedWorkload workload;
    public Redis redis;
  }

  /** Remote store protocol. */
  public enum Provider {
    @SerializedName("Redis")
    REDIS
  }

  /** Who runs the remote store. */
  public enum Ownership {
    @SerializedName("Managed")
    MANAGED,
    @SerializedName("External")
    EXTERNAL
  }

  /** Pod settings of a Managed store. */
  public static class ManagedWorkload extends PodScheduling {
    public Map<String, String> nodeSelector;
    public V1Affinity affinity;
    public List<V1TopologySpreadConstraint> topologySpreadConstraints;
  }

  /** Redis settings. */
  public static class Redis {
    public String image;
    public V1ResourceRequirements resources;
    public RedisAuthentication authentication;
    public RedisTls tls;
    public Integer database;
  }

  /** Redis credentials. */
  public static class RedisAuthentication {
    public V1SecretKeySelector username;
    public V1SecretKeySelector password;
  }

  /** Redis TLS (refused at admission in this version). */
  public static class RedisTls {
    public V1SecretKeySelector caCertificate;
    public String serverName;
  }

  /** KV-event observation. */
  public static class Observation {
    public String modelID;

    /** Go duration, e.g. {@code 5m0s}. */
    public String firstEventTimeout;
  }

  /** How the engines use the cache. */
  public static class Integration {
    public IntegrationMode mode;
    public IntegrationRole role;
    public Boolean failOpen;
    public EngineOverrides engineOverrides;
  }

  /** Offload (full hierarchy) or routing only. */
  public enum IntegrationMode {
    @SerializedName("Offload")
    OFFLOAD,
    @SerializedName("EventsOnly")
    EVENTS_ONLY
  }

  /** Direction of cache traffic. */
  public enum IntegrationRole {
    @SerializedName("ReadOnly")
    READ_ONLY,
    @SerializedName("WriteOnly")
    WRITE_ONLY,
    @SerializedName("ReadWrite")
    READ_WRITE
  }

  /** Changes to the engine container on top of the adapter's. */
  public static class EngineOverrides {
    public List<String> args;
    public List<String> suppressArgs;
    public List<V1EnvVar> env;
    public List<String> suppressEnv;
  }

  /** The engine pods of the backend. */
  public static class EngineSelector {
    public Map<String, String> matchLabels;
  }

  /** SGLang hierarchical cache settings. */
  public static class HiCache {
    public Integer sizeGB;
    public String ratio;
    public WritePolicy writePolicy;
    public IoBackend ioBackend;
    public MemoryLayout memoryLayout;
  }

  /** {@code --hicache-write-policy} values. */
  public enum WritePolicy {
    @SerializedName("write_back")
    WRITE_BACK,
    @SerializedName("write_through")
    WRITE_THROUGH,
    @SerializedName("write_through_selective")
    WRITE_THROUGH_SELECTIVE
  }

  /** {@code --hicache-io-backend} values. */
  public enum IoBackend {
    @SerializedName("direct")
    DIRECT,
    @SerializedName("kernel")
    KERNEL,
    @SerializedName("kernel_ascend")
    KERNEL_ASCEND
  }

  /** {@code --hicache-mem-layout} values. */
  public enum MemoryLayout {
    @SerializedName("layer_first")
    LAYER_FIRST,
    @SerializedName("page_first")
    PAGE_FIRST,
    @SerializedName("page_first_direct")
    PAGE_FIRST_DIRECT,
    @SerializedName("page_first_kv_split")
    PAGE_FIRST_KV_SPLIT,
    @SerializedName("page_head")
    PAGE_HEAD
  }

  /** What the controller observed. */
  public static class Status extends ConditionedStatus {
    public ConnectorStatus connector;
    public RemoteStorageStatus remoteStorage;
    public Integer matchedEnginePods;
    public String engineSelectorMessage;
    public Boolean failOpen;
    public OffsetDateTime firstKVEventObservedAt;
    public OffsetDateTime firstAvailableAt;
    public IndexParticipation indexParticipation;
  }

  /** Connector coverage of a typed LMCache multiprocess backend. */
  public static class ConnectorStatus {
    public ConnectorMode mode;
    public Topology topology;
    public Integer matchedEnginePods;
    public Integer readyEnginePods;
    public Integer desiredServers;
    public Integer readyServers;
    public Integer coveredEnginePods;
    public Integer uncoveredEnginePods;
    public List<EnginePodCoverage> enginePodCoverage;
  }

  /** Connector mode. */
  public enum ConnectorMode {
    @SerializedName("Multiprocess")
    MULTIPROCESS
  }

  /** Coverage of one engine pod (a list map keyed by name). */
  public static class EnginePodCoverage {
    public String name;
    public String nodeName;
    public Boolean ready;
    public Boolean covered;
    public String reason;
  }

  /** State of the remote tier. */
  public static class RemoteStorageStatus {
    public Provider provider;
    public String endpoint;
    public ConditionStatus ready;
  }

  /** A condition-like tri-state. */
  public enum ConditionStatus {
    @SerializedName("True")
    TRUE,
    @SerializedName("False")
    FALSE,
    @SerializedName("Unknown")
    UNKNOWN
  }

  /** The backend's share of the index. */
  public static class IndexParticipation {
    public Long prefixCount;
    public OffsetDateTime lastEventAt;
    public String hitRate;
    public String t2HitRate;
  }
}
