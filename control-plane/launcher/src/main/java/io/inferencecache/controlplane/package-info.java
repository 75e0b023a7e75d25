/**
 * The entry point of the one executable jar: {@link
 * io.inferencecache.controlplane.InferenceCacheMain} hands every command line to the commands in
 * {@code cli}.
 */
package io.inferencecache.controlplane;
