package io.inferencecache.perf.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.natslocal.NatsServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A replica's consumer rewound 10,000 sequences over reports and evictions of the same chains, on a
 * real nats-server 2.9: the second application leaves every answer as it was.
 */
@Timeout(180)
class RewindDrillIT {
  @RegisterExtension static final NatsServerExtension NATS = new NatsServerExtension();

  @Test
  void reapplyingTheLast10kSequencesLeavesTheDigestUnchanged() throws Exception {
    final long chains = 12_000;
    try (StreamFill fill = new StreamFill(NATS.url(), "rewind-it", 4, 8)) {
      fill.publish(0, chains);
      // Evictions of chains reported inside the rewound range: applied out of order, the rewind
      // would bring block 3 of these chains back.
      final long last = fill.evict(chains - 5_000, chains, 7, 3);
      assertThat(last).isEqualTo(chains + 5_000 / 7 + 1);

      final RewindDrill.Result r =
          RewindDrill.run(NATS.url(), "rewind-it", chains, 4, 10_000, Duration.ofSeconds(120));

      assertThat(r.last()).isEqualTo(last);
      assertThat(r.rewoundFrom()).isEqualTo(last - 10_000);
      assertThat(r.reapplied()).isEqualTo(10_000);
      assertThat(r.digestUnchanged()).as(r.toString()).isTrue();
      // Evicted chains match 3 of their 4 blocks, every other chain all 4: applied out of order
      // (a report re-applied after its chain's eviction) these counts would move.
      assertThat(r.partialMatches()).isEqualTo(5_000 / 7 + 1);
      assertThat(r.fullMatches()).isEqualTo(chains - (5_000 / 7 + 1));
      assertThat(r.lookups()).isPositive();
      assertThat(r.lookupErrors()).isZero();
    }
  }
}
