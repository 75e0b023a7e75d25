/**
 * The YAML configuration ({@link
 * io.inferencecache.controlplane.server.config.ControlPlaneConfiguration} and its sections; every
 * {@code serve} flag has a key here) and the Kubernetes client built from its {@code kubernetes}
 * section.
 */
package io.inferencecache.controlplane.server.config;
