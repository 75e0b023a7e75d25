/**
 * A test publisher that speaks the engines' KV-event protocol ({@link
 * io.inferencecache.subscriber.fake.FakeEngine}, also the {@code fake-engine} command).
 */
package io.inferencecache.subscriber.fake;
