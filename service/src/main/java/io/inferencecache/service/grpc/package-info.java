/**
 * The {@code inferencecache.v1alpha1.InferenceCache} gRPC service: the zero-copy LookupRoute path,
 * the protobuf paths of the other RPCs, ingest validation and the streaming feeds.
 */
package io.inferencecache.service.grpc;
