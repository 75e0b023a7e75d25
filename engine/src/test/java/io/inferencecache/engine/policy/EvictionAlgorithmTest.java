package io.inferencecache.engine.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** docs/behaviour.md#eviction-lru-lfu: only "lfu", in any case, means LFU. */
class EvictionAlgorithmTest {

  @ParameterizedTest
  @ValueSource(strings = {"lfu", "LFU", "Lfu", "lFu"})
  void lfuInAnyCaseParsesAsLfu(final String eviction) {
    assertThat(EvictionAlgorithm.parse(eviction)).isEqualTo(EvictionAlgorithm.LFU);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"lru", "LRU", "bogus", " lfu", "lfu ", "lfuu", "fifo"})
  void anythingElseParsesAsLru(final String eviction) {
    assertThat(EvictionAlgorithm.parse(eviction)).isEqualTo(EvictionAlgorithm.LRU);
  }

  @Test
  void labelsAreTheLowerCaseMetricLabels() {
    assertThat(EvictionAlgorithm.LRU.label()).isEqualTo("lru");
    assertThat(EvictionAlgorithm.LFU.label()).isEqualTo("lfu");
  }
}
