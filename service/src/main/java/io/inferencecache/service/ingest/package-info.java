/**
 * ReportCacheState and PublishEvent: the validating marshaller, the rules for what a defect costs
 * (dropped field, dropped update, or the call ended), and the hand-off to the index, the streaming
 * feeds or, with replication, the forwarder.
 */
package io.inferencecache.service.ingest;
