/**
 * The HTTPS listener setup the operator's listeners share (the controller's secure metrics and the
 * admission webhooks): socket from a bind address, TLS versions and ALPN.
 */
package io.inferencecache.controlplane.https;
