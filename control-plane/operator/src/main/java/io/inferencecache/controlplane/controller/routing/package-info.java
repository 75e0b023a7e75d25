/**
 * The routing resources' side of the controller: PDTopology (each pool resolved to the Running pods
 * its {@code matchLabels} select, {@code status.pools} and the {@code Ready} condition) and
 * PromptTemplate (validated by the {@code templates} rules, {@code status.templateRevision} and
 * {@code Ready}), and the push of both sets to the server's {@code /pd-topologies} and {@code
 * /prompt-templates} beside the policy push. Pure functions (resolution, verdicts, bodies) are
 * separate from the reconcilers and the push; {@link
 * io.inferencecache.controlplane.controller.routing.RoutingControllers} wires them.
 */
package io.inferencecache.controlplane.controller.routing;
