/**
 * A minimal protobuf wire-format reader and writer, for the paths that parse requests straight from
 * the transport's buffers instead of building generated messages.
 */
package io.inferencecache.service.wire;
