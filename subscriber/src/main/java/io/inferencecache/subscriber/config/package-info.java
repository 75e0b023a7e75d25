/**
 * The sidecar's settings: {@link io.inferencecache.subscriber.config.SubscriberConfig} (every flag,
 * its default and its validation, checked once before anything starts) and the Go duration grammar
 * of its flags ({@link io.inferencecache.subscriber.config.GoDuration}).
 */
package io.inferencecache.subscriber.config;
