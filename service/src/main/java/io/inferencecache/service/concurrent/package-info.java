/** Small concurrency building blocks shared by the service's transports and feeds. */
package io.inferencecache.service.concurrent;
