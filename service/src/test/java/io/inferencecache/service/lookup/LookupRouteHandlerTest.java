package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.StrategySpec;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The handler driven directly (no transport): the deadline it runs under (§2.9 steps 2-3) and the
 * claim protocol that keeps a call answered TIMEOUT by a transport watchdog from being counted or
 * credited a second time.
 */
@Timeout(30)
class LookupRouteHandlerTest {
  static final String TENANT = "team-a";
  static final byte[] KEY = {1, 2, 3, 4, 5, 6, 7, 8};
  static final long START = 1_000_000_000L;

  CacheIndex index;
  final RecordingLookupMetrics metrics = new RecordingLookupMetrics();
  LookupRouteHandler handler;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    handler = new LookupRouteHandler(index, PromptTokenizer.NONE, 16, metrics, System::nanoTime);
  }

  @AfterEach
  void close() {
    index.close();
  }

  void policy(final PolicySpec.Builder p) {
    index.policyStore().replace(new PolicySnapshot(7, List.of(p.build()), List.of()));
  }

  static LookupInput input() {
    final LookupInput in = new LookupInput();
    in.request().keys(TENANT, "m", "vllm", "");
    return in;
  }

  static CallContext call(final boolean claimable) {
    return new CallContext() {
      @Override
      public long deadlineNanos() {
        return Long.MAX_VALUE;
      }

      @Override
      public boolean cancelled() {
        return false;
      }

      @Override
      public boolean claim() {
        return claimable;
      }
    };
  }

  @Test
  void deadlineIsNoneWithoutCallerPolicyOrTokenization() {
    assertThat(handler.deadline(input(), Long.MAX_VALUE, START)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void deadlineIsTheTighterOfCallerAndPolicy() {
    policy(PolicySpec.builder(TENANT).lookupTimeoutMs(25));
    final long policy = START + TimeUnit.MILLISECONDS.toNanos(25);
    assertThat(handler.deadline(input(), Long.MAX_VALUE, START)).isEqualTo(policy);
    assertThat(handler.deadline(input(), START + 1000, START)).isEqualTo(START + 1000);
    assertThat(handler.deadline(input(), policy + 1, START)).isEqualTo(policy);
  }

  @Test
  void deadlineDefaultsToFiveSecondsOnlyForATokenizingCall() {
    final long def = START + TimeUnit.SECONDS.toNanos(5);
    assertThat(handler.deadline(input().prompt("hi", 1 << 20), Long.MAX_VALUE, START))
        .isEqualTo(def);
    assertThat(handler.deadline(input().prompt("hi", 1 << 20), START + 7, START))
        .as("a caller deadline wins")
        .isEqualTo(START + 7);
    assertThat(handler.deadline(input().prompt("hi", 1 << 20).addTokenId(1), Long.MAX_VALUE, START))
        .as("token_ids take precedence: no tokenization")
        .isEqualTo(Long.MAX_VALUE);
    final LookupInput withChain = input().prompt("hi", 1 << 20);
    withChain.request().addBlockHash(KEY).addBlockTokenCount(16);
    assertThat(handler.deadline(withChain, Long.MAX_VALUE, START)).isEqualTo(Long.MAX_VALUE);
    policy(PolicySpec.builder(TENANT).strategy(new StrategySpec(false, null, null)));
    assertThat(handler.deadline(withChain, Long.MAX_VALUE, START))
        .as("chain matching off: the chain is ignored and the prompt tokenized")
        .isEqualTo(def);
  }

  @Test
  void callAnsweredElsewhereIsNeitherRecordedNorCredited() {
    policy(PolicySpec.builder(TENANT).eviction("lfu"));
    index.ingest(
        new IngestUpdate(
            "r-a", "m", TENANT, "vllm", 0, "", List.of(IngestPrefix.legacy(KEY, 128, 1)), null));
    final LookupInput in = input();
    in.request().exact(KEY, 128);
    final LookupOutput out = new LookupOutput();
    final LookupRouteHandler.Scratch scratch = new LookupRouteHandler.Scratch();

    handler.handle(in, out, call(false), scratch, System.nanoTime());
    assertThat(metrics.count()).isZero();
    assertThat(index.accessCount(TENANT, "m", "vllm", "", KEY, "r-a")).isZero();

    final LookupInput again = input();
    again.request().exact(KEY, 128);
    handler.handle(again, out, call(true), scratch, System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(metrics.count()).isEqualTo(1);
    assertThat(index.accessCount(TENANT, "m", "vllm", "", KEY, "r-a")).isEqualTo(1);
  }
}
