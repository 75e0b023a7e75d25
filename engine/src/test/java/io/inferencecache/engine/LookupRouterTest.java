package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.StrategySpec;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The LookupRoute decision driven directly (no transport): the deadline it hands the transport
 * (steps 2-3), the claim that keeps a call answered elsewhere from being credited, the probe
 * tenant, the names filled with the scores, the fail-open guard, and a warm call allocating
 * nothing. The transports' behaviour is the service's LookupRouteBehaviourSuite.
 */
@Timeout(30)
class LookupRouterTest {
  static final String TENANT = "team-a";
  static final byte[] KEY = {1, 2, 3, 4, 5, 6, 7, 8};
  static final long START = 1_000_000_000L;

  CacheIndex index;
  LookupRouter router;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    router = new LookupRouter(index, NO_TOKENIZER, 16, System::nanoTime);
  }

  @AfterEach
  void close() {
    index.close();
  }

  static final RouteTokenizer NO_TOKENIZER =
      new RouteTokenizer() {
        @Override
        public boolean supports(final String modelId) {
          return false;
        }

        @Override
        public int[] encodeUserTurn(final String modelId, final String text) {
          throw new UnsupportedOperationException(modelId);
        }
      };

  /** A call with a caller deadline that records what the router hands it. */
  static final class Call implements RouteCall {
    final long callerDeadline;
    final boolean claimable;
    long resolved = -1;
    int resolvedCalls;

    Call(final long callerDeadline, final boolean claimable) {
      this.callerDeadline = callerDeadline;
      this.claimable = claimable;
    }

    @Override
    public long deadlineNanos() {
      return callerDeadline;
    }

    @Override
    public boolean cancelled() {
      return false;
    }

    @Override
    public void deadlineResolved(final long deadlineNanos) {
      resolved = deadlineNanos;
      resolvedCalls++;
    }

    @Override
    public boolean claim() {
      return claimable;
    }
  }

  void policy(final PolicySpec.Builder p) {
    index.policyStore().replace(new PolicySnapshot(7, List.of(p.build()), List.of()));
  }

  static RouteRequest input() {
    final RouteRequest in = new RouteRequest();
    in.request().keys(TENANT, "m", "vllm", "");
    return in;
  }

  /** The deadline the router hands the transport for {@code in} under {@code callerDeadline}. */
  long deadline(final RouteRequest in, final long callerDeadline) {
    final Call call = new Call(callerDeadline, true);
    router.route(in, new RouteResult(), call, START);
    assertThat(call.resolvedCalls).as("handed over exactly once").isEqualTo(1);
    return call.resolved;
  }

  @Test
  void deadlineIsNoneWithoutCallerPolicyOrTokenization() {
    assertThat(deadline(input(), Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void deadlineIsTheTighterOfCallerAndPolicy() {
    policy(PolicySpec.builder(TENANT).lookupTimeoutMs(25));
    final long policy = START + TimeUnit.MILLISECONDS.toNanos(25);
    assertThat(deadline(input(), Long.MAX_VALUE)).isEqualTo(policy);
    assertThat(deadline(input(), START + 1000)).isEqualTo(START + 1000);
    assertThat(deadline(input(), policy + 1)).isEqualTo(policy);
  }

  @Test
  void deadlineDefaultsToFiveSecondsOnlyForATokenizingCall() {
    final long def = START + TimeUnit.SECONDS.toNanos(5);
    assertThat(deadline(input().prompt("hi", 1 << 20), Long.MAX_VALUE)).isEqualTo(def);
    assertThat(deadline(input().prompt("hi", 1 << 20), START + 7))
        .as("a caller deadline wins")
        .isEqualTo(START + 7);
    assertThat(deadline(input().prompt("hi", 1 << 20).addTokenId(1), Long.MAX_VALUE))
        .as("token_ids take precedence: no tokenization")
        .isEqualTo(Long.MAX_VALUE);
    final RouteRequest withChain = input().prompt("hi", 1 << 20);
    withChain.request().addBlockHash(KEY).addBlockTokenCount(16);
    assertThat(deadline(withChain, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    policy(PolicySpec.builder(TENANT).strategy(new StrategySpec(false, null, null)));
    final RouteRequest again = input().prompt("hi", 1 << 20);
    again.request().addBlockHash(KEY).addBlockTokenCount(16);
    assertThat(deadline(again, Long.MAX_VALUE))
        .as("chain matching off: the chain is ignored and the prompt tokenized")
        .isEqualTo(def);
  }

  @Test
  void callAnsweredElsewhereIsNotCredited() {
    policy(PolicySpec.builder(TENANT).eviction("lfu"));
    index.ingest(
        new IngestUpdate(
            "r-a", "m", TENANT, "vllm", 0, "", List.of(IngestPrefix.legacy(KEY, 128, 1)), null));
    final RouteResult out = new RouteResult();

    final RouteRequest in = input();
    in.request().exact(KEY, 128);
    router.route(in, out, new Call(Long.MAX_VALUE, false), System.nanoTime());
    assertThat(index.accessCount(TENANT, "m", "vllm", "", KEY, "r-a")).isZero();

    final RouteRequest again = input();
    again.request().exact(KEY, 128);
    router.route(again, out, new Call(Long.MAX_VALUE, true), System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(index.accessCount(TENANT, "m", "vllm", "", KEY, "r-a")).isEqualTo(1);
  }

  @Test
  void probeTenantIsAnsweredNoHintWithoutResolvingAPolicyOrDeadline() {
    final RouteRequest in = new RouteRequest();
    in.request().keys(CacheIndex.RESERVED_TENANT, "m", "vllm", "").exact(KEY, 128);
    final RouteResult out = new RouteResult();
    final Call call = new Call(Long.MAX_VALUE, true);
    router.route(in, out, call, System.nanoTime() - 1_000_000);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.NO_HINT);
    assertThat(out.latencyMicros()).isZero();
    assertThat(out.probeTenant()).isTrue();
    assertThat(call.resolvedCalls).isZero();
  }

  @Test
  void scoresCarryTheReplicaNamesOfTheSamePass() {
    for (String r : List.of("vllm-b", "vllm-a", "vllm-c")) {
      index.ingest(chain(TENANT, "m", "vllm", r, 16, "b0", "b1", "b2", "b3", "b4"));
    }
    for (String r : List.of("vllm-x", "vllm-y", "vllm-z")) {
      index.ingest(chain(TENANT, "m", "vllm", r, 16, "other"));
    }
    final RouteRequest in = input();
    for (String b : List.of("b0", "b1", "b2", "b3", "b4")) {
      in.request().addBlockHash(b.getBytes(StandardCharsets.UTF_8)).addBlockTokenCount(16);
    }
    final RouteResult out = new RouteResult();
    router.route(in, out, RouteCall.NONE, System.nanoTime());

    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(out.scoreCount()).isEqualTo(3);
    assertThat(out.modelLabel()).isEqualTo("m");
    for (int i = 0; i < out.scoreCount(); i++) {
      assertThat(out.replicaName(i)).isEqualTo(index.replicaName(out.replicaId(i)));
      assertThat(new String(out.replicaNameUtf8(i), StandardCharsets.UTF_8))
          .isEqualTo(out.replicaName(i));
    }
    assertThat(List.of(out.replicaName(0), out.replicaName(1), out.replicaName(2)))
        .containsExactlyInAnyOrder("vllm-a", "vllm-b", "vllm-c");
  }

  @Test
  void affinityHintCarriesItsReplicaName() {
    index.ingest(chain(TENANT, "m", "vllm", "vllm-a", 16, "other"));
    final RouteRequest in = input();
    in.request().exact(KEY, 128);
    final RouteResult out = new RouteResult();
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(out.scoreCount()).isEqualTo(1);
    assertThat(out.replicaName(0)).isEqualTo("vllm-a");
    assertThat(out.score(0)).isZero();
  }

  @Test
  void internalFaultIsAnsweredNoHintAndFlagged() {
    router.indexHook(
        () -> {
          throw new IllegalStateException("injected");
        });
    final RouteRequest in = input();
    in.request().exact(KEY, 128);
    final RouteResult out = new RouteResult();
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.NO_HINT);
    assertThat(out.internalError()).isTrue();
    assertThat(out.modelLabel()).isEqualTo("m");
    assertThat(out.scoreCount()).isZero();

    router.indexHook(null);
    router.route(in.reset(), out, RouteCall.NONE, System.nanoTime());
    assertThat(out.internalError()).as("reset by the next call").isFalse();
  }

  @Test
  void warmChainCallAllocatesNothing() {
    final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
    final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(
        threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
    policy(PolicySpec.builder(TENANT).eviction("lfu"));
    final String[] blocks = {"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"};
    for (String r : List.of("vllm-a", "vllm-b", "vllm-c", "vllm-d")) {
      index.ingest(chain(TENANT, "m", "vllm", r, 16, blocks));
    }
    for (String r : List.of("vllm-w", "vllm-x", "vllm-y", "vllm-z")) {
      index.ingest(chain(TENANT, "m", "vllm", r, 16, "other"));
    }
    final byte[][] hashes = new byte[blocks.length][];
    for (int i = 0; i < blocks.length; i++) {
      hashes[i] = blocks[i].getBytes(StandardCharsets.UTF_8);
    }
    final RouteRequest in = new RouteRequest();
    final RouteResult out = new RouteResult();
    // Until the JIT has compiled the path (slow on a loaded machine) the interpreter allocates
    // what escape analysis later removes: measure rounds until one is clean, at most 20.
    long least = Long.MAX_VALUE;
    long sink = 0;
    for (int round = 0; round < 20 && least >= 8 * 1024; round++) {
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 20_000; i++) {
        sink += routeChain(in, out, hashes);
      }
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }

    assertThat(sink).isPositive();
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(out.scoreCount()).isEqualTo(4);
    // One allocation per call would be hundreds of kilobytes a round; allow only the noise.
    assertThat(least).isLessThan(8 * 1024);
  }

  private int routeChain(final RouteRequest in, final RouteResult out, final byte[][] hashes) {
    in.reset().request().keys(TENANT, "m", "vllm", "");
    for (byte[] h : hashes) {
      in.request().addBlockHash(h).addBlockTokenCount(16);
    }
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    return out.scoreCount();
  }
}
