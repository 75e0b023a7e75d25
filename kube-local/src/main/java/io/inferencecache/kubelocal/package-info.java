/**
 * Test support: a real Kubernetes API server on loopback for JUnit 5 tests.
 *
 * <p>{@link io.inferencecache.kubelocal.KubeLocalTest} on a test class starts one kube-local (a
 * kube-apiserver 1.20 built from Debian's source package, and etcd; see {@code bin/kube-local}) per
 * JVM and injects a {@link io.inferencecache.kubelocal.KubeLocal} into test methods, constructors
 * and lifecycle methods. Nothing here is used by the product at run time.
 */
package io.inferencecache.kubelocal;
