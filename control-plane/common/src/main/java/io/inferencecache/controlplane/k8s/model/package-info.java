/**
 * Java model of the six {@code inferencecache.io/v1alpha1} custom resources (CacheBackend,
 * CachePolicy, CacheTenant, CacheIndex, PromptTemplate, PDTopology), serialised with gson for the
 * official Kubernetes client's {@link io.kubernetes.client.util.generic.GenericKubernetesApi}. The
 * CacheIndex kind is {@link io.inferencecache.controlplane.k8s.model.CacheIndexResource}, a name
 * apart from the engine's index.
 *
 * <p>Each kind is a {@link io.inferencecache.controlplane.k8s.model.CustomResource} with nested
 * plain data classes for its spec and status; the Java field names are the JSON names. Unset
 * optional fields are {@code null} and are left out of the JSON. The schema in {@code ops/crds} is
 * the source of truth; a unit test fails when the two differ.
 */
package io.inferencecache.controlplane.k8s.model;
