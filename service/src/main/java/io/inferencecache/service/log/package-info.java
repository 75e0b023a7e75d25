/** Rate-limited logging, so that a flood of one kind of event costs one line per interval. */
package io.inferencecache.service.log;
