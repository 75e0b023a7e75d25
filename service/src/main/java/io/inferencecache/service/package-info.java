/**
 * The data-plane service: gRPC transport ({@code server}) and, later, the RPC handlers and
 * engine-side ingestion.
 */
package io.inferencecache.service;
