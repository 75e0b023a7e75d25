package io.inferencecache.service.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CopyOnWriteArrayTest {
  @Test
  void addAndRemoveCopyWhileASnapshotStaysAsItWas() {
    final CopyOnWriteArray<String> a = new CopyOnWriteArray<>(new String[0]);
    final String x = new String("x");
    final String y = new String("x");
    a.add(x);
    a.add(y);
    final String[] before = a.snapshot();
    assertThat(a.remove(y)).isTrue();
    assertThat(a.snapshot()).as("by identity: the equal other stays").containsExactly(x);
    assertThat(a.snapshot()[0]).isSameAs(x);
    assertThat(before).hasSize(2);
    assertThat(a.remove(new String("x"))).as("an equal but different object is absent").isFalse();
    assertThat(a.remove(x)).isTrue();
    assertThat(a.size()).isZero();
    assertThat(a.snapshot()).isEmpty();
  }

  @Test
  void mustStartEmpty() {
    assertThatThrownBy(() -> new CopyOnWriteArray<>(new String[] {"a"}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
