/**
 * Test and drill support: {@link io.inferencecache.servelocal.ServeChild} runs the product's {@code
 * serve} command as a child process on loopback ports, for tests and drills that need several real
 * server processes (replication, kill -9). Nothing here is used by the product at run time.
 */
package io.inferencecache.servelocal;
