package io.inferencecache.kubelocal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against kube-local: a real kube-apiserver 1.20 and etcd on
 * loopback, started once per JVM and shared by every annotated class. Declare a {@link KubeLocal}
 * parameter (test method, constructor, {@code @BeforeAll}/{@code @BeforeEach}) to use it, and take
 * a fresh namespace per test with {@link KubeLocal#newNamespace()}.
 *
 * <pre>{@code
 * @KubeLocalTest
 * class ConfigMapIT {
 *   @Test
 *   void createsAConfigMap(KubeLocal kube) throws ApiException {
 *     String ns = kube.newNamespace();
 *     new CoreV1Api(kube.adminClient())
 *         .createNamespacedConfigMap(ns, new V1ConfigMap().metadata(new V1ObjectMeta().name("a")))
 *         .execute();
 *   }
 * }
 * }</pre>
 *
 * @see KubeLocal for the limits of the 1.20 server
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(KubeLocalExtension.class)
public @interface KubeLocalTest {}
