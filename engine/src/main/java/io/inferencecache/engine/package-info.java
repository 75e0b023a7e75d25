/** The off-heap cache-state index. */
package io.inferencecache.engine;
