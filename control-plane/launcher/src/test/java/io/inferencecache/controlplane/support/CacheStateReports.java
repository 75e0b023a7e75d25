package io.inferencecache.controlplane.support;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.inferencecache.controlplane.client.ClientConnection;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.time.Duration;
import java.util.function.IntFunction;

/** One ReportCacheState stream over a real channel: the updates, then the server's one Ack. */
public final class CacheStateReports {
  private CacheStateReports() {}

  /**
   * One {@code vllm} update: {@code replica} of {@code tenant} holds a chain of {@code blocks}
   * blocks of 16 tokens, block {@code i} hashed as {@code hash.apply(i)}.
   */
  public static CacheStateUpdate chain(
      final String replica,
      final String model,
      final String tenant,
      final int blocks,
      final IntFunction<ByteString> hash) {
    final PrefixEntry.Builder chain = PrefixEntry.newBuilder();
    for (int i = 0; i < blocks; i++) {
      chain.addBlockHashes(hash.apply(i)).addBlockTokenCounts(16);
    }
    return CacheStateUpdate.newBuilder()
        .setReplicaId(replica)
        .setModelId(model)
        .setTenantId(tenant)
        .setHashScheme("vllm")
        .addPrefixes(chain)
        .build();
  }

  /**
   * Sends {@code updates} on one stream, half-closes it and waits up to {@code seconds} for the
   * Ack.
   */
  public static Ack send(
      final Channel channel, final long seconds, final CacheStateUpdate... updates) {
    return ClientConnection.report(channel, Duration.ofSeconds(seconds), updates);
  }
}
