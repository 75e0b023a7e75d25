/**
 * Configuration text shared by the subscriber and the control plane: Go's duration syntax ({@link
 * io.inferencecache.configtext.GoDuration}), which their flags and custom resources keep from
 * upstream.
 */
package io.inferencecache.configtext;
