/** RenderTemplate benchmarks: the renderer alone and the service's in-process RPC. */
package io.inferencecache.perf.render;
