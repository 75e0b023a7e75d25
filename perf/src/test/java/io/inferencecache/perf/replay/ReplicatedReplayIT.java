package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.natslocal.NatsServerExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replay through a real nats-server 2.9 JetStream stream into three in-process replicas: every
 * replica ends holding what the simulated engine replicas store, all answer alike, and every
 * message's lag on every replica is measured.
 */
@Timeout(300)
class ReplicatedReplayIT {
  @RegisterExtension static final NatsServerExtension NATS = new NatsServerExtension();

  @SuppressWarnings("unchecked")
  private static Map<String, Object> sub(final Map<String, Object> r, final String key) {
    return (Map<String, Object>) r.get(key);
  }

  @Test
  void everyReplicaEndsEqualToTheSimulationAndToTheOthers() throws Exception {
    final Map<String, Object> r =
        ReplayRunner.run(
            new ReplayOptions()
                .mode("replicated")
                .natsUrl(NATS.url())
                .serverReplicas(3)
                .replicas(8)
                .capacity(512)
                .duplication(2)
                .maxRequests(1000)
                .warmup(100)
                .quiet(true));
    assertThat(r.get("requests")).isEqualTo(1000L);
    assertThat(sub(r, "index").get("matchesSimulation")).isEqualTo(true);
    final Map<String, Object> rep = sub(r, "replication");
    assertThat(rep.get("digestEqualOnEveryReplica")).isEqualTo(true);
    final List<?> entries = (List<?>) rep.get("entriesPerReplica");
    assertThat(entries).hasSize(3);
    assertThat(new java.util.HashSet<Object>(entries)).hasSize(1);
    assertThat((Long) rep.get("lagCount")).isEqualTo(3 * (Long) rep.get("streamMessages"));
    assertThat((Double) rep.get("lagP50Ms")).isPositive();
  }
}
