package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.VersionInfo;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NativeSidecarsTest {
  private static VersionInfo version(final String major, final String minor, final String git) {
    final VersionInfo v = new VersionInfo();
    v.setMajor(major);
    v.setMinor(minor);
    v.setGitVersion(git);
    return v;
  }

  @Test
  void kubernetes129AndLaterAcceptNativeSidecars() {
    assertThat(NativeSidecars.refusalFor(version("1", "29", "v1.29.0"))).isNull();
    assertThat(NativeSidecars.refusalFor(version("1", "31+", "v1.31.2-gke.1"))).isNull();
    assertThat(NativeSidecars.refusalFor(version("2", "0", "v2.0.0"))).isNull();
  }

  @Test
  void anOlderApiServerIsRefusedNamingItsVersion() {
    assertThat(NativeSidecars.refusalFor(version("1", "28", "v1.28.9")))
        .isEqualTo(
            "the lmcache-mp-server is a native sidecar, which needs Kubernetes 1.29+; the API"
                + " server is v1.28.9 and would refuse the injected pod");
    assertThat(NativeSidecars.refusalFor(version("1", "20", ""))).contains("server is 1.20 ");
  }

  @Test
  void aVersionWithoutNumbersIsRefused() {
    assertThat(NativeSidecars.refusalFor(version("", "x", "weird")))
        .startsWith("the API server reports a version without numbers (weird)");
  }

  @Test
  void aReadVersionIsKeptAndAFailedReadIsRetried() {
    final AtomicInteger reads = new AtomicInteger();
    final NativeSidecars s =
        new NativeSidecars(
            () -> {
              if (reads.incrementAndGet() == 1) {
                throw new ApiException(503, "unavailable");
              }
              return version("1", "20", "v1.20.5");
            });
    assertThat(s.refusal())
        .startsWith("cannot read the API server version")
        .endsWith("): HTTP 503");
    assertThat(s.refusal()).contains("the API server is v1.20.5");
    assertThat(s.refusal()).contains("the API server is v1.20.5");
    assertThat(reads).hasValue(2);
  }

  @Test
  void theAssumedVersionAcceptsNativeSidecars() {
    assertThat(NativeSidecars.ASSUMED.refusal()).isNull();
  }
}
