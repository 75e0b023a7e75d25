package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.controlplane.cli.KubeAccess.Env;
import io.inferencecache.controlplane.cli.KubeAccess.InCluster;
import io.inferencecache.controlplane.cli.KubeAccess.Kubeconfig;
import io.inferencecache.controlplane.cli.KubeAccess.Order;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where doctor and controller find the API server, and what they say when they cannot. */
class KubeAccessTest {
  private static final String KUBECONFIG =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
          + "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n"
          + "users:\n- name: u\n  user:\n    token: t\n";

  @TempDir Path dir;
  private final Map<String, String> vars = new HashMap<>();

  private Env env() {
    return new Env(vars::get, dir.resolve("home"), dir.resolve("sa"));
  }

  private Path homeConfig() throws Exception {
    final Path f = dir.resolve("home/.kube/config");
    Files.createDirectories(f.getParent());
    Files.writeString(f, KUBECONFIG);
    return f;
  }

  private Path file(final String name) throws Exception {
    return Files.writeString(dir.resolve(name), KUBECONFIG);
  }

  private void pod() throws Exception {
    vars.put("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    vars.put("KUBERNETES_SERVICE_PORT", "443");
    Files.createDirectories(dir.resolve("sa"));
    Files.writeString(dir.resolve("sa/token"), "t");
    Files.writeString(dir.resolve("sa/ca.crt"), "c");
  }

  @Test
  void nothingToUseSaysWhatWasTriedAndWhatToDo() {
    for (final Order order : Order.values()) {
      assertThatThrownBy(() -> KubeAccess.resolve(null, env(), order))
          .isInstanceOf(KubeAccess.Unavailable.class)
          .hasMessage(
              "no kubeconfig: --kubeconfig and $KUBECONFIG are unset, ~/.kube/config ("
                  + dir.resolve("home/.kube/config")
                  + ") is missing, and this is not a pod (KUBERNETES_SERVICE_HOST unset); pass"
                  + " --kubeconfig FILE or set KUBECONFIG");
    }
  }

  @Test
  void blankVariablesCountAsUnset() {
    vars.put("KUBECONFIG", " ");
    vars.put("KUBERNETES_SERVICE_HOST", "");
    assertThatThrownBy(() -> KubeAccess.resolve("", env(), Order.HOME_THEN_CLUSTER))
        .hasMessageStartingWith(KubeAccess.NOTHING_FOUND);
  }

  @Test
  void theFlagComesFirstAndAMissingFlagFileIsAnError() throws Exception {
    final Path f = file("flag");
    pod();
    homeConfig();
    vars.put("KUBECONFIG", file("env").toString());
    assertThat(KubeAccess.resolve(f.toString(), env(), Order.CLUSTER_THEN_HOME))
        .isEqualTo(new Kubeconfig(f, "--kubeconfig"));
    assertThatThrownBy(
            () ->
                KubeAccess.resolve(dir.resolve("nope").toString(), env(), Order.HOME_THEN_CLUSTER))
        .hasMessage("kubeconfig " + dir.resolve("nope") + " (--kubeconfig) does not exist");
  }

  @Test
  void kubeconfigVariableTakesItsFirstExistingFileAndRefusesAListOfMissingOnes() throws Exception {
    final Path second = file("second");
    vars.put("KUBECONFIG", dir.resolve("first") + File.pathSeparator + second);
    homeConfig();
    assertThat(KubeAccess.resolve(null, env(), Order.HOME_THEN_CLUSTER))
        .isEqualTo(new Kubeconfig(second, "$KUBECONFIG"));
    vars.put("KUBECONFIG", dir.resolve("first").toString());
    assertThatThrownBy(() -> KubeAccess.resolve(null, env(), Order.HOME_THEN_CLUSTER))
        .hasMessage("kubeconfig: no file of $KUBECONFIG (" + dir.resolve("first") + ") exists");
  }

  @Test
  void doctorPrefersTheHomeFileAndTheControllerThePod() throws Exception {
    final Path home = homeConfig();
    assertThat(KubeAccess.resolve(null, env(), Order.CLUSTER_THEN_HOME))
        .isEqualTo(new Kubeconfig(home, "~/.kube/config"));
    pod();
    assertThat(KubeAccess.resolve(null, env(), Order.HOME_THEN_CLUSTER))
        .isEqualTo(new Kubeconfig(home, "~/.kube/config"));
    assertThat(KubeAccess.resolve(null, env(), Order.CLUSTER_THEN_HOME)).isEqualTo(new InCluster());
    Files.delete(home);
    assertThat(KubeAccess.resolve(null, env(), Order.HOME_THEN_CLUSTER)).isEqualTo(new InCluster());
  }

  @Test
  void aPodWithoutPortOrTokenIsNamedInsteadOfAParseError() throws Exception {
    pod();
    vars.remove("KUBERNETES_SERVICE_PORT");
    assertThatThrownBy(() -> KubeAccess.resolve(null, env(), Order.CLUSTER_THEN_HOME))
        .hasMessage(
            "in-cluster config: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is"
                + " unset; outside a pod pass --kubeconfig FILE");
    vars.put("KUBERNETES_SERVICE_PORT", "https");
    assertThatThrownBy(() -> KubeAccess.resolve(null, env(), Order.CLUSTER_THEN_HOME))
        .hasMessageContaining("KUBERNETES_SERVICE_PORT is \"https\", not a port");
    vars.put("KUBERNETES_SERVICE_PORT", "443");
    Files.delete(dir.resolve("sa/token"));
    assertThatThrownBy(() -> KubeAccess.resolve(null, env(), Order.CLUSTER_THEN_HOME))
        .hasMessage(
            "in-cluster config: KUBERNETES_SERVICE_HOST is set but "
                + dir.resolve("sa/token")
                + " is missing (is a service-account token mounted?); outside a pod pass"
                + " --kubeconfig FILE");
  }

  @Test
  void aClientComesFromTheFileWithItsContextOrSaysWhyNot() throws Exception {
    final Kubeconfig source = new Kubeconfig(file("k"), "--kubeconfig");
    assertThat(KubeAccess.client(source, null, Duration.ofSeconds(3)).getBasePath())
        .isEqualTo("https://127.0.0.1:1");
    assertThat(KubeAccess.client(source, "c", Duration.ZERO).getBasePath())
        .isEqualTo("https://127.0.0.1:1");
    assertThatThrownBy(() -> KubeAccess.client(source, "other", Duration.ZERO))
        .hasMessage("context \"other\" not found in kubeconfig " + source.file());
    assertThatThrownBy(() -> KubeAccess.client(new InCluster(), "c", Duration.ZERO))
        .hasMessageStartingWith("--context needs a kubeconfig");
    final Kubeconfig broken =
        new Kubeconfig(Files.writeString(dir.resolve("broken"), "{[: not yaml"), "$KUBECONFIG");
    assertThatThrownBy(() -> KubeAccess.client(broken, null, Duration.ZERO))
        .isInstanceOf(KubeAccess.Unavailable.class)
        .hasMessageStartingWith("kubeconfig " + broken.file() + " ($KUBECONFIG): ");
  }
}
