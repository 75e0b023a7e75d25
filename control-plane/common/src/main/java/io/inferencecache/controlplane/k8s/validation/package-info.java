/**
 * Validation of {@code inferencecache.io} objects against the shipped CustomResourceDefinitions:
 * the CRD documents on the classpath ({@link
 * io.inferencecache.controlplane.k8s.validation.CrdDocuments}) and their CEL {@code
 * x-kubernetes-validations} rules ({@link
 * io.inferencecache.controlplane.k8s.validation.CrdCelRules}), evaluated as the API server
 * evaluates them, for API servers that do not (before 1.25) and for the admission webhooks.
 */
package io.inferencecache.controlplane.k8s.validation;
