/**
 * Test support: a real NATS JetStream broker on loopback for JUnit 5 tests.
 *
 * <p>{@link io.inferencecache.natslocal.NatsServer} runs Debian's {@code nats-server} (2.9.x, found
 * on {@code PATH} or at {@code /usr/sbin/nats-server}) as a child process with JetStream on, on a
 * free loopback port and a temporary store directory. {@link
 * io.inferencecache.natslocal.NatsServerExtension}, registered with {@code @RegisterExtension},
 * starts one per test class or method and stops it by PID. Nothing here is used by the product at
 * run time.
 */
package io.inferencecache.natslocal;
