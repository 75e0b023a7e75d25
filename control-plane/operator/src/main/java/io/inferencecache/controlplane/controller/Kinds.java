package io.inferencecache.controlplane.controller;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;

/** The custom resources the controller reads and writes ({@code inferencecache.io/v1alpha1}). */
public enum Kinds {
  CACHE_POLICY("CachePolicy", "cachepolicies"),
  CACHE_TENANT("CacheTenant", "cachetenants"),
  CACHE_INDEX("CacheIndex", "cacheindices");

  public static final String GROUP = "inferencecache.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  private final String kind;
  private final String plural;

  Kinds(final String kind, final String plural) {
    this.kind = kind;
    this.plural = plural;
  }

  public String kind() {
    return kind;
  }

  public String plural() {
    return plural;
  }

  /** The official client's generic API for this kind. */
  public DynamicKubernetesApi api(final ApiClient client) {
    return new DynamicKubernetesApi(GROUP, VERSION, plural, client);
  }
}
